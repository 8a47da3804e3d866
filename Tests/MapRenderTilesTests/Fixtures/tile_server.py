#!/usr/bin/env python3
"""A tile server on 127.0.0.1 for the tile tests. Prints its port, then serves until killed.

Paths: /MODE/z/x/y.png serves FIXTURES/folder/z/x/y.png, where MODE is
  ok        200 with Cache-Control: max-age=3600 and an ETag
  plain     200 with no caching headers (the client keeps it 7 days)
  etag      200 with Cache-Control: no-cache and an ETag; 304 when If-None-Match matches
  missing   404
  flaky429  429 with Retry-After: 1 on the first request of each tile, then 200
  flaky500  500 on the first two requests of each tile, then 200
  down      500 always
  slow      sleeps 3 s before answering
  slowonce  sleeps 3 s on the first request of each tile, then answers at once
  retry2    429 with Retry-After: 2 on the first request of each tile, then 200
  retry30   429 with Retry-After: 30 on the first request of each tile, then 200
  longwait  429 with Retry-After: 3600 always
  rainf     429 with Retry-After: inf always
  rahuge    429 with Retry-After: 10^40 always
  ra1       429 with Retry-After: 1 always
  bad       200 with bytes that are not an image
  hold      sleeps 0.3 s, so concurrent requests overlap (connection cap)
  hang      reads the request and never answers
  drip      200 with the tile's Content-Length, then one byte every 0.5 s
  stall     200 with the tile's Content-Length and its first 16 bytes, then nothing
  huge      200 with Content-Length: 2147483648, then zeros for as long as the client reads
  endless   200 with no Content-Length (Connection: close), zeros for as long as the client reads
  gzipbomb  200, Content-Encoding: gzip, ~1 MB that inflates to 1 GiB of zeros
/mb/NAME/z/x/y.png serves the tiles of FIXTURES/NAME.mbtiles (Cache-Control: max-age=86400; 404 when absent).
/NAME.pmtiles serves FIXTURES/NAME.pmtiles with Range requests (206); /datadown/NAME.pmtiles
  serves its header and directories but answers 500 for ranges in its tile data.
/stats returns JSON: requests per path, the most requests in flight at once, user agents seen,
  and every request in the order it arrived ("log": [Host header, path, seconds since start]).
"""
import json, os, sqlite3, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FIX = os.path.dirname(os.path.abspath(__file__))
lock = threading.Lock()
counts, agents, log = {}, set(), []
# --delay-ms N: every answer waits N ms first (a server far away; the benchmark's cold cache).
DELAY = float(sys.argv[sys.argv.index("--delay-ms") + 1]) / 1000 if "--delay-ms" in sys.argv else 0
START = time.time()
state = {"inflight": 0, "max_inflight": 0}


_bomb = []


def gzip_bomb():
    """About 1 GiB of zeros in a gzip stream of about 1 MB, written by hand (zlib takes seconds
    to compress that much): one fixed-Huffman deflate block of a literal 0 and then matches of
    length 258 at distance 1, whose bits repeat every 13 bytes. Its CRC is not that of the data:
    a client that keeps to its limit stops long before the end."""
    if _bomb:
        return _bomb[0]
    bits = []

    def code(value, n):  # a Huffman code, most significant bit first
        bits.extend((value >> (n - 1 - i)) & 1 for i in range(n))

    bits += [1, 1, 0]             # BFINAL, BTYPE 01 (fixed codes), least significant bit first
    code(0x30, 8)                 # literal 0
    for _ in range(9):
        code(0xC5, 8)             # length 258 (code 285)
        code(0, 5)                # distance 1
    raw = bytes(sum(b << i for i, b in enumerate(bits[k:k + 8])) for k in range(0, 24 + 104, 8))
    head, period = raw[:3], raw[3:16]          # 3 bytes: header, literal, 1 match; then 8 matches
    n = (1 << 30) // (258 * 8)
    end = bytes([0x00])                        # end of block (7 zero bits), padded
    size = (1 + 258 * (1 + 8 * n)) & 0xFFFFFFFF
    body = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + head + period * n + end + bytes(4) + size.to_bytes(4, "little")
    _bomb.append(body)
    return body


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # TCP_NODELAY, as real tile servers set it (nginx's tcp_nodelay): with Nagle on, the body of
    # a keep-alive answer waited for the client's delayed ACK of the headers, ~40 ms a request.
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def send(self, code, body=b"", headers=()):
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/stats":
            with lock:
                body = json.dumps({"counts": counts, "maxInFlight": state["max_inflight"],
                                   "agents": sorted(agents), "log": log}).encode()
            return self.send(200, body, [("Content-Type", "application/json")])
        with lock:
            n = counts.get(self.path, 0) + 1
            counts[self.path] = n
            agents.add(self.headers.get("User-Agent", ""))
            log.append([self.headers.get("Host", ""), self.path, "%.3f" % (time.time() - START)])
            state["inflight"] += 1
            state["max_inflight"] = max(state["max_inflight"], state["inflight"])
        try:
            self.answer(n)
        finally:
            with lock:
                state["inflight"] -= 1

    def answer(self, n):
        if DELAY:
            time.sleep(DELAY)
        if self.path.startswith("/mb/"):
            parts = self.path.strip("/").split("/")
            if len(parts) != 5:
                return self.send(404)
            _, name, z, x, y = parts
            db = sqlite3.connect(os.path.join(FIX, os.path.basename(name) + ".mbtiles"))
            z, x, y = int(z), int(x), int(y.split(".")[0])
            row = db.execute("SELECT tile_data FROM tiles WHERE zoom_level=? AND tile_column=? AND tile_row=?",
                             (z, x, 2 ** z - 1 - y)).fetchone()
            db.close()
            if row is None:
                return self.send(404)
            return self.send(200, bytes(row[0]), [("Cache-Control", "max-age=86400"), ("Content-Type", "image/png")])
        if self.path.endswith(".pmtiles"):
            down = self.path.startswith("/datadown/")
            name = os.path.basename(self.path)
            if "/" in self.path.strip("/") and not down or not os.path.exists(os.path.join(FIX, name)):
                return self.send(404)
            data = open(os.path.join(FIX, name), "rb").read()
            data_offset = int.from_bytes(data[56:64], "little")
            rng = self.headers.get("Range", "")
            if rng.startswith("bytes="):
                a, b = rng[6:].split("-")
                if down and int(a) >= data_offset:
                    return self.send(500, b"tile data unavailable")
                part = data[int(a):int(b) + 1]
                return self.send(206, part, [("Content-Range", f"bytes {a}-{int(a) + len(part) - 1}/{len(data)}"),
                                             ("Cache-Control", "max-age=3600")])
            return self.send(200, data)
        parts = self.path.strip("/").split("/")
        if len(parts) != 4:
            return self.send(404)
        mode, z, x, y = parts
        path = os.path.join(FIX, "folder", z, x, y)
        if not os.path.exists(path):
            return self.send(404)
        body = open(path, "rb").read()
        etag = '"%s-%s-%s"' % (z, x, y.split(".")[0])
        if mode == "ok":
            return self.send(200, body, [("Cache-Control", "max-age=3600"), ("ETag", etag)])
        if mode == "plain":
            return self.send(200, body)
        if mode == "etag":
            if self.headers.get("If-None-Match") == etag:
                return self.send(304, b"", [("ETag", etag), ("Cache-Control", "no-cache")])
            return self.send(200, body, [("Cache-Control", "no-cache"), ("ETag", etag)])
        if mode == "missing":
            return self.send(404)
        if mode == "flaky429":
            if n == 1:
                return self.send(429, b"slow down", [("Retry-After", "1")])
            return self.send(200, body)
        if mode == "flaky500":
            if n <= 2:
                return self.send(500, b"oops")
            return self.send(200, body)
        if mode == "down":
            return self.send(500, b"down")
        if mode == "slow":
            time.sleep(3)
            return self.send(200, body)
        if mode == "slowonce":
            if n == 1:
                time.sleep(3)
            return self.send(200, body)
        if mode == "retry2":
            if n == 1:
                return self.send(429, b"slow down", [("Retry-After", "2")])
            return self.send(200, body)
        if mode == "retry30":
            if n == 1:
                return self.send(429, b"slow down", [("Retry-After", "30")])
            return self.send(200, body)
        if mode == "rainf":
            return self.send(429, b"slow down", [("Retry-After", "inf")])
        if mode == "rahuge":
            return self.send(429, b"slow down", [("Retry-After", "1" + "0" * 40)])
        if mode == "ra1":
            return self.send(429, b"slow down", [("Retry-After", "1")])
        if mode == "longwait":
            return self.send(429, b"come back in an hour", [("Retry-After", "3600")])
        if mode == "bad":
            return self.send(200, b"<html>not a tile</html>")
        if mode == "hold":
            time.sleep(0.3)
            return self.send(200, body)
        if mode == "hang":
            time.sleep(120)
            return
        if mode in ("drip", "stall"):
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.flush()
            if mode == "stall":
                self.wfile.write(body[:16])
                self.wfile.flush()
                time.sleep(120)
                return
            for i in range(len(body)):
                self.wfile.write(body[i:i + 1])
                self.wfile.flush()
                time.sleep(0.5)
            return
        if mode in ("huge", "endless"):
            self.send_response(200)
            if mode == "huge":
                self.send_header("Content-Length", str(2 ** 31))
            else:
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            zeros = bytes(1 << 16)
            try:
                for _ in range(2 ** 31 // len(zeros)):
                    self.wfile.write(zeros)
            except OSError:
                pass
            return
        if mode == "gzipbomb":
            return self.send(200, gzip_bomb(), [("Content-Encoding", "gzip"), ("Content-Type", "image/png")])
        return self.send(404)


# Die with the test process, even when it ends without stopping us (Linux: PR_SET_PDEATHSIG).
try:
    import ctypes, signal
    ctypes.CDLL("libc.so.6").prctl(1, signal.SIGKILL)
except OSError:
    pass

# A listen backlog of 128 as real servers have (socketserver's default is 5): with more
# connections opening at once than the backlog, the kernel drops a SYN and the client's connect
# stalls for the 1 s SYN retransmit (the benchmark's 8-connection run took 1.04 s instead of 0.2 s).
ThreadingHTTPServer.request_queue_size = 128
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
