import ArgumentParser

@main
struct Segmance: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "segmance",
        abstract: "Segmance Box: a rehearsal appliance.")
}
