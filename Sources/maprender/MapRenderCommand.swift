import ArgumentParser
import MapRender

@main
struct MapRenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "maprender")
}
