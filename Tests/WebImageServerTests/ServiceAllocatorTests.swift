#if canImport(Glibc)
    import Testing
    import WebImageServer

    /// `webimage serve`'s glibc malloc settings (issue #15, memory; ``ServiceAllocator``).
    @Suite struct ServiceAllocatorTests {
        // What the settings do to memory (large blocks given back when freed) is measured by
        // `make soak-service` (docs/DEPLOYMENT.md, "Memory"), not here: in a test process whose
        // arenas already hold free memory from other tests, glibc serves even a large block from
        // that free memory first, so whether one block is mapped says nothing reliable.
        @Test func theServiceSettingsAreApplied() {
            let settings = ServiceAllocator.tune(environment: [:])
            #expect(settings.arenaLimit == ServiceAllocator.arenaLimit)
            #expect(settings.mmapThreshold == ServiceAllocator.mmapThreshold)
            #expect(settings.trimThreshold == ServiceAllocator.trimThreshold)
        }

        @Test func theEnvironmentChoosesFirst() {
            let settings = ServiceAllocator.tune(environment: [
                "MALLOC_ARENA_MAX": "4", "GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=65536:glibc.malloc.trim_threshold=1",
            ])
            #expect(settings == ServiceAllocator.Settings(arenaLimit: nil, mmapThreshold: nil, trimThreshold: nil))
            let partly = ServiceAllocator.tune(environment: ["MALLOC_TRIM_THRESHOLD_": "0"])
            #expect(partly.arenaLimit == ServiceAllocator.arenaLimit && partly.mmapThreshold != nil && partly.trimThreshold == nil)
        }
    }
#endif
