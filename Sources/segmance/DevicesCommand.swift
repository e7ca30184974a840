import ALSA
import ArgumentParser
import GPIOD
import LinuxInput

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract:
            "List what a board profile can name: ALSA PCMs and cards, GPIO chips and lines, input devices, I2C buses.")

    func run() throws {
        print(Self.report())
    }

    static func report() -> String {
        var out: [String] = []
        func section(_ title: String, _ lines: [String]) {
            out.append(title)
            out += lines.isEmpty ? ["  none found"] : lines.map { "  " + $0 }
            out.append("")
        }
        let cards = (try? ALSAConfigurationCatalog.cards()) ?? []
        section("ALSA cards ([audio] device = \"plughw:CARD=<name>\" or \"hw:<index>\"):",
                cards.map { "\($0.index): \($0.name) — \($0.longName)" })
        let pcms = (try? ALSAConfigurationCatalog.pcmHints()) ?? []
        section("ALSA PCMs ([audio] device):", pcms.filter { $0.direction != "Input" }.map {
            $0.name + ($0.description.map { "  — \($0)" } ?? "")
        })
        let scan = GPIOInventory.scan()
        var chipLines: [String] = []
        for chip in scan.chips {
            chipLines.append(
                "\(chip.path)  name \(chip.name)  label \(chip.label)  (\(chip.lines.count) lines) — [gpio] chip")
            let named = chip.lines.map { line in
                "\(line.offset)" + (line.name.map { "=\($0)" } ?? "")
                    + (line.used ? " (used by \(line.consumer ?? "?"))" : "")
            }
            chipLines.append("    lines: " + named.joined(separator: ", "))
        }
        chipLines += scan.failures.map { "\($0)" }
        section("GPIO chips ([gpio] chip, [gpio.lines] names or offsets):", chipLines)
        section("Input devices ([[input]] device):", InputInventory.devices().map { "\($0.path): \($0.name)" })
        section(
            "I2C buses ([display] bus):", I2CInventory.buses().map { "\($0.path)" + ($0.name.map { ": \($0)" } ?? "") })
        return out.joined(separator: "\n")
    }
}
