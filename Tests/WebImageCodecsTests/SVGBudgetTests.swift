import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImageCodecs
import WebImageCore

/// ``SVGRenderBudget``: counted limits before parsing, the clock checked while drawing, the
/// caller's wait bounded, abandoned drawings capped. Serialized: the drawing tests watch the
/// process-wide count of abandoned drawings.
@Suite("SVG render budget", .serialized, .timeLimit(.minutes(3)))
struct SVGBudgetTests {
    /// A flag set on one thread and read on another. Sendable: the value is an atomic.
    final class Flag: Sendable {
        private let atomic = Atomic<Bool>(false)
        var value: Bool { atomic.load(ordering: .relaxed) }
        func set(_ value: Bool) { atomic.store(value, ordering: .relaxed) }
    }

    /// A drawing thread's end, seen through a thread-local value whose destructor runs as the
    /// thread ends. Sendable: its state is a semaphore and atomics.
    final class ThreadEnd: Sendable {
        let callerReturned = DispatchSemaphore(value: 0)
        let ended = Flag()

        /// Makes the calling thread's end wait (bounded) for ``callerReturned``, then set ``ended``.
        func watchCurrentThread() {
            pthread_setspecific(ThreadEnd.key, Unmanaged.passRetained(self).toOpaque())
        }

        static let key: pthread_key_t = {
            var key = pthread_key_t()
            pthread_key_create(&key) { value in
                guard let value else { return }
                let end = Unmanaged<ThreadEnd>.fromOpaque(value).takeRetainedValue()
                // A caller that waits for the thread to end is waiting here, so it cannot
                // return first; the bound only lets such a caller go on.
                _ = end.callerReturned.wait(timeout: .now() + .seconds(2))
                end.ended.set(true)
            }
            return key
        }()
    }

    static let header = #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="900" height="900">"#

    /// `<use>` amplification: 7 levels of 10 references each, a million rectangles.
    static var useBomb: String {
        var svg = header + ##"<defs><rect id="a0" width="900" height="900" fill="#f00" opacity="0.5"/>"##
        for level in 1..<7 {
            svg += #"<g id="a\#(level)">"# + String(repeating: ##"<use xlink:href="#a\##(level - 1)"/>"##, count: 10) + "</g>"
        }
        return svg + ##"</defs><use xlink:href="#a6"/></svg>"##
    }

    /// Forty large rectangles, each under a wide Gaussian blur.
    static var blurs: String {
        var svg = header + #"<defs><filter id="f" x="-1" y="-1" width="3" height="3"><feGaussianBlur stdDeviation="40"/></filter></defs>"#
        for i in 0..<40 { svg += #"<rect x="\#(i * 5)" y="10" width="600" height="600" fill="red" filter="url(#f)"/>"# }
        return svg + "</svg>"
    }

    static func budget(seconds: Double, overrunning: Int = 8) -> SVGRenderBudget {
        var budget = SVGRenderBudget()
        budget.maxDuration = seconds
        budget.maxOverrunning = overrunning
        return budget
    }

    /// Waits (bounded) until no abandoned drawing is left running.
    static func expectBackgroundEnds(_ limiter: SVGOverrunLimiter = .shared) async throws {
        let clock = ContinuousClock()
        let start = clock.now
        while limiter.overrunning > 0, clock.now - start < .seconds(90) {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(limiter.overrunning == 0, "an abandoned drawing kept running")
    }

    @Test("Given more elements or filter primitives than the budget counts, or an entity holding markup, then imageTooLarge before parsing")
    func counted() throws {
        var budget = SVGRenderBudget()
        budget.maxElements = 50
        budget.maxFilterPrimitives = 3
        let coder = SVGCoder(budget: budget)
        let rects = String(repeating: #"<rect width="1" height="1"/>"#, count: 50)
        let primitives = #"<filter id="f">"# + String(repeating: #"<svg:feOffset dx="1"/>"#, count: 4) + "</filter>"
        let documents = [
            ("elements", Self.header + rects + "</svg>"),
            ("filter primitives", Self.header + primitives + "</svg>"),
            ("markup entity", #"<!DOCTYPE svg [<!ENTITY r "<rect width='9' height='9'/>">]>"# + Self.header + "&r;&r;</svg>"),
        ]
        for (what, svg) in documents {
            #expect(throws: WebImageError.self, "\(what)") { try coder.decode(Data(svg.utf8), options: .default) }
            do {
                _ = try coder.readMetadata(Data(svg.utf8))
                Issue.record("\(what): read")
            } catch WebImageError.imageTooLarge {} catch { Issue.record("\(what): \(error)") }
        }
        // At the limits, the document is drawn.
        let within = Self.header + String(repeating: #"<rect width="1" height="1"/>"#, count: 44) + #"<filter id="f"><feOffset/><feOffset/><feOffset/></filter></svg>"#
        #expect(try coder.decode(Data(within.utf8), options: .default).pixelSize == PixelSize(width: 900, height: 900))
    }

    @Test("Given a million <use> rectangles or forty wide blurs, then timedOut(.render) within the budget, and the drawing stops in the background")
    func pathological() async throws {
        let coder = SVGCoder(budget: Self.budget(seconds: 0.25))
        for (what, svg) in [("use bomb", Self.useBomb), ("blurs", Self.blurs)] {
            do {
                _ = try coder.decode(Data(svg.utf8), options: .default)
                Issue.record("\(what): drawn within the budget")
            } catch WebImageError.timedOut(.render(let seconds)) {
                #expect(seconds == 0.25)
            } catch {
                Issue.record("\(what): \(error)")
            }
            // Unchecked, either would keep a core busy for minutes.
            try await Self.expectBackgroundEnds()
        }
        // An ordinary document still draws with the same coder.
        let plain = Self.header + ##"<rect width="450" height="900" fill="#00f"/></svg>"##
        let image = try coder.decode(Data(plain.utf8), options: .default)
        #expect(image.pixels.pixel(x: 10, y: 10) == RGBA(r: 0, g: 0, b: 255))
        #expect(image.pixels.pixel(x: 800, y: 10).a == 0)
    }

    @Test("Given a budget of no time (zero, negative, not a number), then the decode ends at once: timedOut or, if already done, the image")
    func noTime() async throws {
        let plain = Data((Self.header + ##"<rect width="9" height="9" fill="#00f"/></svg>"##).utf8)
        for seconds in [0, -1, Double.nan] {
            do {
                let image = try SVGCoder(budget: Self.budget(seconds: seconds)).decode(plain, options: .default)
                #expect(image.pixelSize == PixelSize(width: 900, height: 900))
            } catch WebImageError.timedOut(.render) {}
        }
        try await Self.expectBackgroundEnds()
    }

    @Test("Given work that finishes in time, then its thread has ended when run returns: nothing the work captured or returned is still held by it")
    func finishedRunEndsItsThread() throws {
        let end = ThreadEnd()
        let value = try SVGBudgetedRun.run(budget: Self.budget(seconds: 600), limiter: SVGOverrunLimiter()) { _ in
            end.watchCurrentThread()
            return 7
        }
        let endedBeforeReturn = end.ended.value
        end.callerReturned.signal()
        #expect(value == 7)
        // A thread still ending after the call has returned lets go of the caller's document
        // then: LeakSanitizer, checking between two fuzz inputs, saw that Data unreferenced.
        #expect(endedBeforeReturn, "the drawing thread was still running after run returned")
    }

    @Test("Given work that overruns, then the caller gets timedOut at once, the work sees the deadline, and further runs are refused while maxOverrunning runs remain")
    func overrunCap() async throws {
        let limiter = SVGOverrunLimiter()
        let gate = DispatchSemaphore(value: 0)
        let sawDeadline = Flag()
        let ranSecond = Flag()
        let budget = Self.budget(seconds: 0.05, overrunning: 1)
        #expect(throws: WebImageError.self) {
            try SVGBudgetedRun.run(budget: budget, limiter: limiter) { deadline in
                gate.wait()
                sawDeadline.set(deadline.isPast)
                return 1
            }
        }
        #expect(limiter.overrunning == 1)
        do {
            _ = try SVGBudgetedRun.run(budget: budget, limiter: limiter) { _ in
                ranSecond.set(true)
                return 2
            }
            Issue.record("a run started while the cap was reached")
        } catch WebImageError.timedOut(.render) {}
        #expect(!ranSecond.value)
        gate.signal()
        try await Self.expectBackgroundEnds(limiter)
        #expect(sawDeadline.value)
        // Room again: a run within its time returns its value.
        #expect(try SVGBudgetedRun.run(budget: Self.budget(seconds: 60, overrunning: 1), limiter: limiter) { _ in 3 } == 3)
    }
}
