import ArgumentParser
import SegmanceMedia

struct DemoStick: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo-stick",
        abstract: "Write a demo stick (synthesized music, two routines) into a folder.")

    @Argument(help: "The folder to write; created if missing.")
    var directory: String

    func run() throws {
        try SegmanceMedia.DemoStick.write(to: directory)
        print("Wrote a demo stick to \(directory)")
    }
}
