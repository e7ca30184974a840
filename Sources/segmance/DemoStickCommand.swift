import ArgumentParser
import SegmanceStick

struct DemoStick: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo-stick",
        abstract: "Write a demo stick (synthesized music, two routines) into a folder.")

    @Argument(help: "The folder to write; created if missing.")
    var directory: String

    func run() throws {
        try SegmanceStick.DemoStick.write(to: directory)
        print("Wrote a demo stick to \(directory)")
    }
}
