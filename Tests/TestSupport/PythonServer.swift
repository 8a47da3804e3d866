import Foundation

/// A loopback test server written in Python: `python3 ARGUMENTS...`, which prints the port it
/// listens on as its first line (the tile server, the URL-marker image server).
public enum PythonServer {
    /// Starts it and reads its port; nil (the process killed) when the first line is not a port.
    public static func start(_ process: Process, arguments: [String]) throws -> Int? {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        var line = Data()
        while true {
            let b = out.fileHandleForReading.readData(ofLength: 1)
            if b.isEmpty || b[b.startIndex] == 0x0A { break }
            line.append(b)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            kill(process.processIdentifier, SIGKILL)
            return nil
        }
        return port
    }
}
