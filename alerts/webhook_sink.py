#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""webhook_sink.py — a webhook receiver on 127.0.0.1 for nl-detect's notifications: the
demo shows what it receives, the tests make it slow, failing or absent.

Each POST is appended to --out as one JSON line:
  {"t": wall-clock seconds, "id": X-Nlkit-Notification, "body": the parsed body}
and answered 200 (or 500 for the first --fail requests, after --delay seconds each).
A body that is not valid JSON is answered 400 and recorded with "bad": the text.

  webhook_sink.py --out FILE [--port N | --port-file FILE] [--delay S] [--fail N] [--show]
                  [--tls CERT KEY]   (https, with that certificate)
"""
import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="append each notification here, one JSON line")
    ap.add_argument("--port", type=int, default=0, help="port (0: any free one)")
    ap.add_argument("--port-file", help="write the port here once listening")
    ap.add_argument("--delay", type=float, default=0.0, help="seconds before each answer")
    ap.add_argument("--fail", type=int, default=0, help="answer 500 to this many first requests")
    ap.add_argument("--show", action="store_true", help="print a line per notification")
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="serve https with this certificate")
    args = ap.parse_args()
    lock = threading.Lock()
    state = {"seen": 0}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, fmt, *a):  # quiet: the record is the --out file
            pass

        def do_POST(self):
            n = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(n)
            if args.delay:
                time.sleep(args.delay)
            with lock:
                state["seen"] += 1
                failing = state["seen"] <= args.fail
            if failing:
                self.send_response(500)
                self.end_headers()
                return
            rec = {"t": time.time(), "id": self.headers.get("X-Nlkit-Notification")}
            code = 200
            try:
                rec["body"] = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as e:
                rec["bad"] = raw.decode("latin-1")
                rec["error"] = str(e)
                code = 400
            with lock:
                with open(args.out, "a", encoding="utf-8") as f:
                    f.write(json.dumps(rec) + "\n")
            if args.show and "body" in rec:
                b = rec["body"]
                names = ", ".join(a["key"] for a in b.get("alerts", []))
                print(f"webhook: {b.get('status')} [{b.get('group')}] {b.get('count')} alert(s): {names}",
                      flush=True)
            self.send_response(code)
            self.end_headers()

    srv = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    if args.tls:
        import ssl
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls[0], args.tls[1])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(str(srv.server_address[1]))
        os.replace(args.port_file + ".tmp", args.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
