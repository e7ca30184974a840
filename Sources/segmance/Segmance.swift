import ArgumentParser

@main
struct Segmance: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "segmance",
        abstract: "Segmance Box: rehearse routines from a USB stick, hands-free.",
        subcommands: [
            Run.self, Sim.self, DemoStick.self, Devices.self, Stick.self, Import.self, Export.self, LibraryCommand.self,
                      ImportWorkerCommand.self])
}
