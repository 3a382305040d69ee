#if canImport(Glibc)
    import Glibc
    import Testing
    import WebImageServer

    /// `webimage serve`'s glibc malloc settings (issue #15, memory; ``ServiceAllocator``).
    @Suite struct ServiceAllocatorTests {
        /// Whether glibc's chunk header before `pointer` marks it as a mapping of its own
        /// (the IS_MMAPPED bit, 0x2, of the size word).
        static func isMapped(_ pointer: UnsafeMutableRawPointer) -> Bool {
            (pointer.load(fromByteOffset: -MemoryLayout<Int>.size, as: Int.self) & 2) != 0
        }

        @Test func largeBlocksStayMappedAfterALargerOneIsFreed() throws {
            let settings = ServiceAllocator.tune(environment: [:])
            #expect(settings.arenaLimit == ServiceAllocator.arenaLimit)
            #expect(settings.mmapThreshold == ServiceAllocator.mmapThreshold)
            #expect(settings.trimThreshold == ServiceAllocator.trimThreshold)
            // glibc's default would raise its threshold to 16 MiB here, and put the 6 MiB block
            // below in an arena, where it would stay once freed.
            let large = try #require(malloc(16 << 20))
            #expect(Self.isMapped(large))
            free(large)
            let block = try #require(malloc(6 << 20))
            defer { free(block) }
            #expect(Self.isMapped(block), "a 6 MiB block is given back to the system when freed")
            let small = try #require(malloc(1 << 20))
            defer { free(small) }
            #expect(!Self.isMapped(small), "a 1 MiB buffer is reused from the arena")
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
