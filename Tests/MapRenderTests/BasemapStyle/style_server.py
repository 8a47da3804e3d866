#!/usr/bin/env python3
"""A loopback server for the basemap-style tests: vector tiles with TMS rows and static files.

usage: style_server.py MBTILES STATIC_DIR

GET /tms/Z/X/Y.pbf   the tile of MBTILES whose tile_row is Y (MBTiles rows are TMS rows already)
GET /static/PATH     the file STATIC_DIR/PATH
anything else, or a missing tile or file: 404. Prints the port it listens on as its first line;
each request it served is logged to stderr."""
import http.server, os, sqlite3, sys, threading

mbtiles, static = sys.argv[1], os.path.abspath(sys.argv[2])
lock = threading.Lock()
db = sqlite3.connect(mbtiles, check_same_thread=False)


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body, kind = None, "application/octet-stream"
        parts = self.path.split("?")[0].strip("/").split("/")
        if len(parts) == 4 and parts[0] == "tms" and parts[3].endswith(".pbf"):
            try:
                z, x, y = int(parts[1]), int(parts[2]), int(parts[3][:-4])
                with lock:
                    row = db.execute("SELECT tile_data FROM tiles WHERE zoom_level=? AND tile_column=? AND tile_row=?",
                                     (z, x, y)).fetchone()
                body = row[0] if row else None
                kind = "application/x-protobuf"
            except ValueError:
                body = None
        elif len(parts) >= 2 and parts[0] == "static":
            path = os.path.abspath(os.path.join(static, *parts[1:]))
            if path.startswith(static + os.sep) and os.path.isfile(path):
                body = open(path, "rb").read()
                kind = "application/json" if path.endswith(".json") else "image/png"
        if body is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, fmt, *args):
        sys.stderr.write("style_server: " + (fmt % args) + "\n")


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
