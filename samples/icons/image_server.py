import http.server, os, sys, time, threading
root = sys.argv[1]
count = 0
lock = threading.Lock()
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def send(self, status, body, headers=()):
        self.send_response(status)
        for k, v in headers: self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        global count
        parts = self.path.strip("/").split("/")
        if parts == ["count"]:
            return self.send(200, str(count).encode())
        with lock: count += 1
        if parts[0] == "slow":
            time.sleep(float(parts[1])); parts = parts[2:]
        if parts == ["big.png"]:
            return self.send(200, b"\x89PNG" + b"\0" * (2 << 20), [("Content-Type", "image/png")])
        if parts[0] == "redirect":
            return self.send(302, b"", [("Location", "http://%s:%d/%s" % (parts[1], self.server.server_port, parts[2]))])
        path = os.path.join(root, os.path.basename(parts[-1]))
        if not os.path.isfile(path):
            return self.send(404, b"no such image")
        kind = {"png": "image/png", "svg": "image/svg+xml", "jpg": "image/jpeg"}.get(path.rsplit(".", 1)[-1], "application/octet-stream")
        self.send(200, open(path, "rb").read(), [("Content-Type", kind)])
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_port, flush=True)
s.serve_forever()