# swift-web-image — every way anyone runs the project goes through these targets.
SWIFT ?= swift
CONFIG ?= debug
SWIFT_BUILD_FLAGS ?=

.PHONY: setup setup-ceph test-s3 build release test test-under-load demo docs bench bench-setup bench-service bench-scale bench-hits fuzz fuzz-coverage soak cluster-demo cluster-hosts soak-service clean \
  bench-resize bench-avif bench-hdr bench-thumbnail bench-thumbnail-fidelity bench-ssimulacra2 bench-colour bench-downloader bench-callgrind bench-callgrind-resize bench-callgrind-service bench-service-cpu bench-service-colour transform-references \
  placeholder-references sigv4-references cmyk-profile neon-check

## setup: install the missing Debian packages and the S3 tests' Python venv (.build-s3-venv:
## botocore, moto[server]) (idempotent; no-op when present)
setup:
	@bash scripts/setup.sh
	@bash scripts/s3-venv.sh >/dev/null
	@bash scripts/quality-venv.sh >/dev/null

## setup-ceph: setup, plus Ceph's RADOS Gateway from Debian (ceph-mon ceph-osd radosgw
## ceph-common: ~270 MB, ~30 s), the real S3 of the S3 suites and of `make cluster-hosts
## S3_BACKEND=ceph` (scripts/ceph-rgw.sh starts a throwaway one-node cluster)
setup-ceph:
	@CEPH=1 bash scripts/setup.sh
	@bash scripts/s3-venv.sh >/dev/null
	@bash scripts/quality-venv.sh >/dev/null

## sigv4-references: regenerate Tests/Fixtures/sigv4/references.json with botocore's signer
sigv4-references: setup
	"$$(bash scripts/s3-venv.sh)" scripts/sigv4-references.py

## build: build every target (debug)
build: setup
	$(SWIFT) build $(SWIFT_BUILD_FLAGS)

## release: build the optimised command-line tool
release: setup
	$(SWIFT) build -c release --product webimage $(SWIFT_BUILD_FLAGS)

## test: build and run every test (Swift Testing). Each test's start and end is printed as it
## happens; a test running over TEST_REPORT_SECONDS (300) is named, and a run where no test ends
## for TEST_HANG_SECONDS (1800) names the tests still running and stops (scripts/run-tests.sh).
## Installs Ceph's RADOS Gateway (setup-ceph): the S3 suites run against it and against moto
## (WEBIMAGE_S3_TEST_BACKENDS=moto leaves it out)
# Two test processes: the CPU-bound codec and core suites hold the threads of the concurrency
# pool for seconds at a time; apart from them the loading, pipeline and tool suites are not
# queued behind that work. (Correctness does not depend on it: the loopback test servers run on
# threads of their own, and no test relies on a timeout it does not test.) Together they are
# all the tests.
CPU_BOUND_SUITES = WebImageCoreTests|WebImageCodecsTests|WebImageColorTests
# The short cluster runs start a dozen processes that load both cores for a minute or more:
# they run last, alone, so that the loopback services of other tests are not starved beside them.
CLUSTER_SUITES = ClusterTests|ClusterHostsTests
test: setup-ceph
	$(SWIFT) build --build-tests $(SWIFT_BUILD_FLAGS)
	SWIFT="$(SWIFT)" SWIFT_BUILD_FLAGS="$(SWIFT_BUILD_FLAGS)" bash scripts/run-tests.sh --filter '$(CPU_BOUND_SUITES)'
	SWIFT="$(SWIFT)" SWIFT_BUILD_FLAGS="$(SWIFT_BUILD_FLAGS)" bash scripts/run-tests.sh --skip '$(CPU_BOUND_SUITES)|$(CLUSTER_SUITES)'
	SWIFT="$(SWIFT)" SWIFT_BUILD_FLAGS="$(SWIFT_BUILD_FLAGS)" bash scripts/run-tests.sh --filter '$(CLUSTER_SUITES)'

## test-s3: only the suites that talk to an S3 server, against moto and Ceph's RADOS Gateway
S3_SUITES = S3LoadingTests|S3FetchCommandTests|S3ResultStoreTests|ServiceS3Tests|ServeS3ResultStoreCommandTests|S3LiveClientTests
test-s3: setup-ceph
	$(SWIFT) build --build-tests $(SWIFT_BUILD_FLAGS)
	SWIFT="$(SWIFT)" SWIFT_BUILD_FLAGS="$(SWIFT_BUILD_FLAGS)" bash scripts/run-tests.sh --filter '$(S3_SUITES)'

## test-under-load: `make test` while stress-ng keeps STRESS_WORKERS CPU workers busy (setup
## installs stress-ng); stress-ng always stops with the suite, and after STRESS_TIMEOUT seconds
## at the latest. Exits with the suite's status.
STRESS_WORKERS ?= 4
STRESS_TIMEOUT ?= 3600
test-under-load: setup
	@STRESS_WORKERS=$(STRESS_WORKERS) STRESS_TIMEOUT=$(STRESS_TIMEOUT) MAKE="$(MAKE)" bash scripts/test-under-load.sh

## demo: build the tool and run its self-contained demo
demo: release
	$(SWIFT) run -c release --skip-build $(SWIFT_BUILD_FLAGS) webimage demo

## docs: DocC documentation of the library targets as one archive (links resolve across
## modules); any warning is an error. Output: .build/docs
docs: setup
	$(SWIFT) package --allow-writing-to-directory .build/docs generate-documentation \
	  --target WebImage --target WebImageCore --target WebImageCodecs --target WebImageServer --target WebImageTesting \
	  --enable-experimental-combined-documentation --output-path .build/docs --warnings-as-errors

## bench-setup: what the benchmarks compare against (Pillow, pyvips, libvips-tools, gcc)
bench-setup: setup
	@EXTRA_PACKAGES="libvips-tools gcc" bash scripts/setup.sh
	@python3 -c "import PIL, pyvips" 2>/dev/null || python3 -m pip install -q pillow pyvips

## bench: decode benchmarks against the C libraries, Pillow and libvips, AVIF/HEIF/JPEG XL and
## TIFF/SVG/PDF included, colour conversion, the resize kernels against Pillow-SIMD and libvips,
## and the thumbnail path with progressive JPEG against baseline and vipsthumbnail
## (docs/PERFORMANCE.md; the service's figures: make bench-service)
bench: bench-setup
	bash Benchmarks/run-decode.sh
	bash Benchmarks/run-decode-newer-formats.sh
	bash Benchmarks/run-decode-tiff-svg-pdf.sh
	$(MAKE) bench-colour
	$(MAKE) bench-resize
	$(MAKE) bench-thumbnail

## bench-service: `webimage serve` against thumbor 7.8 (venv under .build-bench-venv) on generated
## sources, interleaved, with vipsthumbnail and the codec libraries called directly as floors:
## CPU-ms per request, req/s, p50/p99, peak RSS, ratios; result-cache hits with wrk; the sweep
## over 1 and 2 workers/processes (docs/PERFORMANCE.md "Service"). Installs wrk, libvips-tools,
## gcc and thumbor. ROUNDS, REQUESTS, C4_REQUESTS, WRK_SECONDS, TASKS, SECTIONS, PROFILE=1, WEBIMAGE_BASE, ORIGIN_ETAG,
## UPDATE_DOC=docs/PERFORMANCE.md (see Benchmarks/python/service_bench.py)
bench-service: setup
	SWIFT="$(SWIFT)" SWIFT_BUILD_FLAGS="$(SWIFT_BUILD_FLAGS)" bash Benchmarks/run-service.sh

## bench-scale: only the sweep of bench-service — the 2 MP JPEG task closed-loop at saturation on
## ours with --workers 1 and 2 and thumbor with --processes 1 and 2: CPU-ms per request at N
## against N = 1, req/s, p50/p99 (SCALE_ROUNDS, SCALE_REQUESTS; N <= the machine's cores)
bench-scale: setup
	SECTIONS=scale BENCH_COMMAND="make bench-scale" SWIFT="$(SWIFT)" SWIFT_BUILD_FLAGS="$(SWIFT_BUILD_FLAGS)" \
	  bash Benchmarks/run-service.sh

## fuzz-coverage: coverage-guided fuzzing (libFuzzer, AddressSanitizer and LeakSanitizer) of every
## entry point that parses bytes from outside: decoders, header reader, the service's request
## path, source URLs, the SVG sanitiser, the disk cache's index. FUZZ_SECONDS per target
## (default 600), FUZZ_JOBS at a time, FUZZ_TARGETS to choose; corpora grow in
## .build-fuzz-corpus; prints `fuzz: TARGET execs=N cov=N crashes=N leaks=N timeouts=N ooms=N`
## (docs/FUZZING.md)
FUZZ_SECONDS ?= 600
fuzz-coverage: setup
	FUZZ_SECONDS=$(FUZZ_SECONDS) SWIFT="$(SWIFT)" bash scripts/fuzz-coverage.sh

## fuzz: the same, one minute per target (a smoke run)
fuzz: setup
	FUZZ_SECONDS=60 SWIFT="$(SWIFT)" bash scripts/fuzz-coverage.sh

## soak: slow robustness run of the downloader against seeded hostile HTTP responses (garbage,
## broken lengths and chunking, resets, header floods, …): SOAK_ITERATIONS cases from SOAK_SEED
SOAK_ITERATIONS ?= 20000
SOAK_SEED ?= 1
soak: setup
	$(SWIFT) build --build-tests $(SWIFT_BUILD_FLAGS)
	WEBIMAGE_SOAK_ITERATIONS=$(SOAK_ITERATIONS) WEBIMAGE_SOAK_SEED=$(SOAK_SEED) \
	  $(SWIFT) test --skip-build $(SWIFT_BUILD_FLAGS) --filter 'LoadingHostileResponseTests/hostileResponses'

## cluster-demo: three `webimage serve` instances (one shared source cache) behind nginx on
## 127.0.0.1 (deploy/nginx/nginx.conf); bounded load, one instance SIGKILLed mid-run and
## restarted; ends with `cluster: requests=N errors=N renders=N hits=N p50=Xms p99=Yms`
## (docs/DEPLOYMENT.md). nginx comes with `make setup` (the test suite runs a short version: ClusterTests); wrk is installed here.
cluster-demo: setup
	SWIFT="$(SWIFT)" SWIFT_BUILD_FLAGS="$(SWIFT_BUILD_FLAGS)" bash scripts/cluster-demo.sh

## cluster-hosts: a cluster of hosts in Linux network namespaces joined by veth links (as root):
## nginx on a front host, three `webimage serve` hosts (release build), a storage host with
## moto's S3 server (s3:// sources and --result-store s3://results/cluster) and an HTTP origin;
## bounded load, one service host SIGKILLed and its link set down mid-run, then every service
## host restarted and the rendered URLs replayed; ends with `cluster-hosts: backend=B requests=N
## errors=N renders=N rerenders_after_restart=N store_hits=N` (docs/DEPLOYMENT.md). Refuses,
## saying why, without root or namespaces (the test suite runs a short version: ClusterHostsTests).
## S3_BACKEND=ceph puts Ceph's RADOS Gateway (scripts/ceph-rgw.sh) on the storage host instead of moto.
S3_BACKEND ?= moto
cluster-hosts: $(if $(filter ceph,$(S3_BACKEND)),setup-ceph,setup)
	S3_BACKEND="$(S3_BACKEND)" SWIFT="$(SWIFT)" SWIFT_BUILD_FLAGS="$(SWIFT_BUILD_FLAGS)" bash scripts/cluster-hosts.sh

## bench-hits: result-cache hits served by `webimage serve` (wrk -t2 -c8 on one ~35 KB JPEG
## URL): req/s and service CPU per request (docs/PERFORMANCE.md). Installs wrk.
bench-hits: release
	bash scripts/bench-hits.sh

## soak-service: a release `webimage serve` against a loopback origin of generated 0.3-12 MP
## JPEG/PNG/WebP/GIF sources: peak RSS at 4 concurrent renders of 12 MP sources, then
## SOAK_REQUESTS renders (each a distinct URL) with VmRSS after 10 % and at the end; prints
## `soak: requests=N rss_10pct=XMB rss_end=YMB growth=Z% peak=WMB` (docs/DEPLOYMENT.md, "Memory").
## SOAK_SERVICE_ENV="MALLOC_ARENA_MAX=4" etc. sets the service's environment. Not in `make test`.
SOAK_REQUESTS ?= 100000
soak-service: setup
	SWIFT="$(SWIFT)" SWIFT_BUILD_FLAGS="$(SWIFT_BUILD_FLAGS)" SOAK_REQUESTS=$(SOAK_REQUESTS) bash scripts/soak-service.sh

## bench-resize: Lanczos3 12 MP → 400x300 and 2 MP → 512 px, RGB and RGBA, 1 thread — the
## Resampler (AVX2/NEON and portable) against Pillow-SIMD (AVX2, built in .build-resize-venv) and
## libvips 8.18 (pyvips-binary) on the same pixels: CPU ms per op, medians, interleaved
## (scripts/bench-resize.sh; RESIZE_ROUNDS × RESIZE_OPS)
RESIZE_ROUNDS ?= 5
RESIZE_OPS ?= 5
bench-resize: bench-setup
	SWIFT="$(SWIFT)" SWIFT_BUILD_FLAGS="$(SWIFT_BUILD_FLAGS)" sh scripts/bench-resize.sh $(RESIZE_ROUNDS) $(RESIZE_OPS)

## bench-hdr: a 12 MP Ultra HDR JPEG (made by libultrahdr) to 500 px — CPU with its gain map,
## without it and libvips 8.18's thumbnail (interleaved medians), then the HDR renditions' PSNR
## in the PQ domain and our SDR base against our plain thumbnail (scripts/bench-hdr.sh;
## HDR_ROUNDS rounds of HDR_ITERATIONS)
HDR_ROUNDS ?= 5
HDR_ITERATIONS ?= 3
bench-hdr: setup
	SWIFT="$(SWIFT)" SWIFT_BUILD_FLAGS="$(SWIFT_BUILD_FLAGS)" bash scripts/bench-hdr.sh $(HDR_ROUNDS) $(HDR_ITERATIONS)

## bench-thumbnail: the thumbnail path (shrink-on-load decode, fit 400x400, JPEG q80) against
## Pillow and libvips, in-process and single-threaded (Benchmarks/run-thumbnail.sh; THUMBNAIL_ITERATIONS),
## then progressive against baseline JPEG and vipsthumbnail, whole processes
## (Benchmarks/run-thumbnail-progressive.sh; THUMBNAIL_RUNS)
THUMBNAIL_ITERATIONS ?= 15
THUMBNAIL_RUNS ?= 15
bench-thumbnail: bench-setup
	bash Benchmarks/run-thumbnail.sh $(THUMBNAIL_ITERATIONS)
	SWIFT="$(SWIFT)" bash Benchmarks/run-thumbnail-progressive.sh $(THUMBNAIL_RUNS)

## bench-colour: colour conversion to sRGB on a generated 12 MP picture, the matrix/TRC path
## against LittleCMS's cmsDoTransform, and a 12 MP JPEG decode tagged against untagged
## (docs/PERFORMANCE.md, "Colour conversion"; COLOUR_ITERATIONS)
COLOUR_ITERATIONS ?= 9
bench-colour: setup
	$(SWIFT) build -c release --product webimage-bench
	.build/release/webimage-bench colour $(COLOUR_ITERATIONS)

## bench-ssimulacra2: one SSIMULACRA2 comparison of 512x512 pixels on one thread, interleaved with
## preparing the reference and comparing against it; medians of SSIMULACRA2_ITERATIONS
## (docs/PERFORMANCE.md, "Perceptual metric"; WEBIMAGE_METRIC_KERNELS=portable: baseline kernels).
## Then ours against PyPI's ssimulacra2 (the reference) on the same pair, interleaved in
## SSIMULACRA2_PEER_ROUNDS rounds of SSIMULACRA2_ITERATIONS of ours and SSIMULACRA2_PEER_CALLS of
## PyPI's (Benchmarks/python/ssimulacra2_peer.py)
SSIMULACRA2_ITERATIONS ?= 51
SSIMULACRA2_PEER_ROUNDS ?= 7
SSIMULACRA2_PEER_CALLS ?= 5
bench-ssimulacra2: setup
	$(SWIFT) build -c release --product webimage-bench $(SWIFT_BUILD_FLAGS)
	.build/release/webimage-bench ssimulacra2 $(SSIMULACRA2_ITERATIONS)
	"$$(bash scripts/quality-venv.sh)" Benchmarks/python/ssimulacra2_peer.py .build/release/webimage-bench \
		$(SSIMULACRA2_PEER_ROUNDS) $(SSIMULACRA2_ITERATIONS) $(SSIMULACRA2_PEER_CALLS)

## bench-avif: the AV1 encoders libavif links (aom, rav1e, SVT-AV1) at equal SSIMULACRA2 against
## imgproxy's default AVIF (aom speed 8, 4:2:0, q63): speed, subsampling, CPU per encode and size
## on 2 MP JPEG sources (generated + the corpus's photos) at 256/512/1024 px (Benchmarks/c/avif_sweep.c,
## Benchmarks/python/avif_sweep.py; docs/PERFORMANCE.md "AVIF encoder"). AVIF_SIDES, AVIF_ITERATIONS
AVIF_SIDES ?= 256,512,1024
AVIF_ITERATIONS ?= 5
bench-avif: bench-setup
	$(SWIFT) build -c release --product webimage $(SWIFT_BUILD_FLAGS)
	mkdir -p .build-bench/bin .build-bench/avif .build-bench/src
	gcc -O2 -Wall -o .build-bench/bin/avif_sweep Benchmarks/c/avif_sweep.c -lturbojpeg -lavif
	[ -f .build-bench/src/photo.jpg ] || python3 Benchmarks/python/service_sources.py .build-bench/src
	AVIF_SWEEP=.build-bench/bin/avif_sweep WEBIMAGE="$$($(SWIFT) build -c release --show-bin-path $(SWIFT_BUILD_FLAGS))/webimage" \
	  SOURCES_DIR=.build-bench/src OUT_DIR=.build-bench/avif SIDES=$(AVIF_SIDES) ITERATIONS=$(AVIF_ITERATIONS) \
	  python3 Benchmarks/python/avif_sweep.py

## bench-thumbnail-fidelity: `webimage convert --thumbnail 400` against `vipsthumbnail`, time and
## PSNR against Pillow's full-resolution Lanczos (Benchmarks/run-thumbnail-fidelity.sh)
bench-thumbnail-fidelity: bench-setup
	bash Benchmarks/run-thumbnail-fidelity.sh

## bench-downloader: per-request overhead of ImageDownloader over a bare AsyncHTTPClient GET
## (Benchmarks/run-request-overhead.sh)
bench-downloader: setup
	bash Benchmarks/run-request-overhead.sh

## bench-callgrind: instruction counts (valgrind) of one decode, ours against the C library
## (Benchmarks/callgrind-decode.sh; needs valgrind and the build of `make bench`)
bench-callgrind: setup
	@EXTRA_PACKAGES="valgrind" bash scripts/setup.sh
	bash Benchmarks/callgrind-decode.sh

## bench-callgrind-resize: instruction counts (valgrind) of one Lanczos3 resize, ours against
## Pillow-SIMD and libvips, on the inputs of `make bench-resize` (scripts/callgrind-resize.sh)
bench-callgrind-resize: bench-resize
	@EXTRA_PACKAGES="valgrind" bash scripts/setup.sh
	SWIFT="$(SWIFT)" SWIFT_BUILD_FLAGS="$(SWIFT_BUILD_FLAGS)" sh scripts/callgrind-resize.sh

## bench-callgrind-service: instruction counts (valgrind) of ONE request of a release
## `webimage serve` (2 MP JPEG → fit 512, JPEG q80 from a loopback origin) and the functions that
## cost the most (scripts/callgrind-service.sh; OPTIONS, WARM, SETTLE)
bench-callgrind-service: release
	@EXTRA_PACKAGES="valgrind" bash scripts/setup.sh
	bash scripts/callgrind-service.sh "$$($(SWIFT) build -c release --show-bin-path $(SWIFT_BUILD_FLAGS))/webimage"

## bench-service-cpu: quick CPU-ms per request of a release `webimage serve` on the service
## benchmark's tasks, for before/after checks while tuning (scripts/measure-service-cpu.sh)
bench-service-cpu: release
	bash scripts/measure-service-cpu.sh

## bench-service-colour: the service's 12 MP → 500 px task through a release `webimage serve` on
## a Display P3 and an Adobe RGB source against the untagged one, interleaved: median CPU-ms per
## request and ratios (scripts/measure-service-colour.sh; COLOUR_REQUESTS, COLOUR_ROUNDS)
COLOUR_REQUESTS ?= 30
COLOUR_ROUNDS ?= 9
bench-service-colour: setup
	$(SWIFT) build -c release --product webimage $(SWIFT_BUILD_FLAGS)
	$(SWIFT) build -c release --product webimage-bench $(SWIFT_BUILD_FLAGS)
	bash scripts/measure-service-colour.sh $(COLOUR_REQUESTS) $(COLOUR_ROUNDS)

## transform-references: regenerate the Pillow resize references the transformer tests
## compare against (Tests/Fixtures/transform-references; scripts/make-transform-references.py)
transform-references: bench-setup
	python3 scripts/make-transform-references.py

## placeholder-references: regenerate the BlurHash/ThumbHash reference table the placeholder
## tests compare against (Tests/Fixtures/placeholder-references; scripts/placeholder-references.py,
## PyPI blurhash and thumbhash-python in a venv under .build-placeholder-venv)
placeholder-references: setup
	$(SWIFT) build --product webimage $(SWIFT_BUILD_FLAGS)
	python3 scripts/placeholder-references.py

## neon-check: the arm64 kernels (CResampleKernels' NEON, CMetricKernels) cross-compiled for aarch64
## (clang and GCC, -Wall -Wextra -Werror) and run under qemu-user against the x86-64 kernel sets on
## the deterministic cases of scripts/kernel-outputs.c: every value identical, and deliberate faults
## in copies of the NEON code caught (scripts/neon-check.sh; correctness only, no arm64 speed).
## Installs gcc-aarch64-linux-gnu, libc6-dev-arm64-cross and qemu-user-static. Not in `make test`.
neon-check:
	bash scripts/neon-check.sh

## cmyk-profile: regenerate the built-in default CMYK profile (FOGRA39 data from Debian's
## icc-profiles-free through ArgyllCMS's colprof; both installed when missing) into
## Sources/WebImageCodecs/Color/DefaultCMYKProfile+Data.swift (scripts/make-cmyk-profile.sh).
## The build never needs them: the generated file is committed.
cmyk-profile:
	bash scripts/make-cmyk-profile.sh

## clean: remove the build folder
clean:
	rm -rf .build
