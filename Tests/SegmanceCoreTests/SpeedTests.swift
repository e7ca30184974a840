import Testing
@testable import SegmanceCore

/// Practice speed (issue 12): LOOP held and the encoder turned, 5 % a detent within
/// 50–150 %, kept with the part and restored whenever it is entered.
@Suite(.tags(.unit)) struct SpeedTests {
    typealias F = Fixture

    static let slow = Routine(title: "Salsa", parts: [F.part(1), Part(title: "Part 2", audio: AudioReference("salsa-2"),
                                                                   length: F.s(60), speed: 75)])

    @Test func loopHeldAndTheEncoderSetTheSpeedOfThePartAndKeepIt() {
        var store = TestStore(F.loaded())
        let e = store.state.epoch
        store.send(.encoderTurnedHolding(.loop, -5), [
            .audio(.setSpeed(75), epoch: e),
            .persist(.partSpeed(routine: "Salsa", part: 0, partTitle: F.salsa.parts[0].title, speed: 75)),
        ]) {
            $0.speedPercent = 75
            $0.routines[0].parts[0].speed = 75
        }
        // Past the end of the range: held at 50 %.
        store.send(.encoderTurnedHolding(.loop, -20), [
            .audio(.setSpeed(50), epoch: e),
            .persist(.partSpeed(routine: "Salsa", part: 0, partTitle: F.salsa.parts[0].title, speed: 50)),
        ]) {
            $0.speedPercent = 50
            $0.routines[0].parts[0].speed = 50
        }
        store.send(.encoderTurnedHolding(.loop, -1))
        store.send(.encoderTurnedHolding(.loop, 40), [
            .audio(.setSpeed(150), epoch: e),
            .persist(.partSpeed(routine: "Salsa", part: 0, partTitle: F.salsa.parts[0].title, speed: 150)),
        ]) {
            $0.speedPercent = 150
            $0.routines[0].parts[0].speed = 150
        }
    }

    @Test func enteringAPartRestoresItsSpeedAndLeavingItGoesBackToTheNextOnes() {
        var store = TestStore(F.loaded(routines: [Self.slow]))
        let e = store.state.epoch + 1
        store.send(.buttonPressed(.next), [
            .audio(.load(Self.slow.parts[1].playable), epoch: e), .audio(.setSpeed(75), epoch: e),
            .audio(.setLoop(nil), epoch: e), .audio(.setNext(nil), epoch: e), F.resume(Self.slow, 1),
        ]) {
            $0.partIndex = 1
            $0.epoch = e
            $0.speedPercent = 75
            $0.titleShownUntil = $0.now + Rules.titleDuration
        }
        store.send(.buttonPressed(.prev), [
            .audio(.load(Self.slow.parts[0].playable), epoch: e + 1), .audio(.setSpeed(100), epoch: e + 1),
            .audio(.setLoop(nil), epoch: e + 1), .audio(.setNext(nil), epoch: e + 1), F.resume(Self.slow, 0),
        ]) {
            $0.partIndex = 0
            $0.epoch = e + 1
            $0.speedPercent = 100
            $0.titleShownUntil = $0.now + Rules.titleDuration
        }
    }

    @Test(arguments: [(77, 75), (49, 50), (151, 150), (103, 105), (100, 100)])
    func speedsSnapToTheGrid(given: Int, expected: Int) {
        #expect(Rules.clampSpeed(given) == expected)
        #expect(Part(title: "x", audio: AudioReference("x"), length: 1, speed: given).speed == expected)
    }
}
