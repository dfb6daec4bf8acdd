#!/usr/bin/env python3
"""A loopback HTTP + HTTPS server for the xds tests (Python 3.11 standard library only).

    http_test_server.py --root FOLDER --work FOLDER [--routes ROUTES.json] [--log LOG.jsonl]

Listens on 127.0.0.1, ports chosen by the system, with five servers:
  http               plain HTTP
  https              TLS with a certificate for 127.0.0.1 and localhost signed by a test CA
  https_self_signed  TLS with a self-signed certificate (nothing trusts it)
  https_expired      TLS with a certificate for 127.0.0.1 signed by the test CA, expired
  https_wrong_host   TLS with a certificate for wrong.example only, signed by the test CA
The CA and certificates are made at start with the `openssl` command in --work. When ready it
prints ONE JSON line on stdout:
  {"http": PORT, "https": PORT, "https_self_signed": PORT, "https_expired": PORT,
   "https_wrong_host": PORT, "ca": "WORK/ca.pem"}
It exits when its standard input reaches end of file (so it never outlives the test process)
or on SIGTERM.

More sites, one CA: a line `site ROOT ROUTES LOG` on standard input opens five more listeners
(the same certificates) serving ROOT with their own routes file and request log, and prints
their ports as one JSON line like the first; `close HTTPPORT` closes the five listeners of the
site whose http port that is. So a test suite makes its CA once and gives each test a site of
its own: the tests share nothing but the process and can run in parallel.

Every request is logged to --log as one JSON line, written when the response is over:
  {"server": "http|https|https_self_signed", "method": "GET", "path": "/x?y", "headers":
   {"lower-case-name": "value", ...}, "status": 200, "body_bytes_sent": N, "complete": true}
When a request comes in (before any answer), {"server": ..., "method": ..., "path": ...} is
appended to the file named like the log with ".started" added, so a test can wait for a request
to be under way (a slow body trickling) rather than sleep.
`body_bytes_sent` counts body bytes the socket accepted; `complete` is false when the client went
away first (so tests can check a client stopped reading early).

What it serves (GET and HEAD):
  /FILE                       a file under --root, with ETag (content hash) and Last-Modified
                              (mtime); 304 on a matching If-None-Match or a not-older
                              If-Modified-Since. Extra headers for a path come from the routes
                              file: {"headers": {"/FILE": {"Cache-Control": "max-age=60"}}}.
  /redirect/N/REST            302 to /redirect/(N-1)/REST, and /redirect/0/REST to /REST;
                              ?status=301 (or 307, 308) changes the code.
  /downgrade/REST             (on https) 302 to http://127.0.0.1:HTTPPORT/REST
  /redirect-then-close/REST   302 to /REST (Content-Length: 0, no "Connection: close"), then the
                              server closes the connection, as some servers do after a redirect
  /redirect-to?location=L     302 to L as given (file:, data:, ftp: URLs…)
  /status/CODE                that status with a short text body ("status CODE")
  /big/N?mode=M               N bytes of "x"; M = honest (Content-Length: N, the default),
                              chunked (no Content-Length), close (no length, ends at close)
  /slow/headers?delay=S       waits S seconds before the status line, then "slow"
  /slow/body?size=N&interval=S&chunk=C
                              Content-Length N, then C bytes (default 1) every S seconds
  /gzip                       Content-Encoding: gzip; the body is gzip("hello, gzip\\n")
  /echo-headers               200, the request headers as a JSON object
The routes file (read again on every request, so a test may rewrite it) can also script whole
responses: {"routes": {"/path": {"status": 200, "headers": {...}, "body": "text" |
"body_base64": "...", "etag": "\\"v1\\"", "last_modified": "RFC 1123 date", "delay": S}}}; a
scripted route with "etag"/"last_modified" answers 304 to a matching conditional request.
"""

import argparse
import base64
import email.utils
import gzip
import hashlib
import http.server
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.parse

LOG_LOCK = threading.Lock()
ARGS = None


class Site:
    """What a set of listeners serves: a root folder, a routes file, a request log, its ports."""

    def __init__(self, root, routes, log):
        self.root = os.path.abspath(root)
        self.routes = routes
        self.log = log
        self.ports = {}
        self.servers = []

    def log_request(self, entry):
        if not self.log:
            return
        line = json.dumps(entry, sort_keys=True)
        with LOG_LOCK:
            with open(self.log, "a", encoding="utf-8") as handle:
                handle.write(line + "\n")
                handle.flush()

    def log_start(self, entry):
        if not self.log:
            return
        with LOG_LOCK:
            with open(self.log + ".started", "a", encoding="utf-8") as handle:
                handle.write(json.dumps(entry, sort_keys=True) + "\n")
                handle.flush()

    def load_routes(self):
        if not self.routes:
            return {}
        try:
            with open(self.routes, encoding="utf-8") as handle:
                return json.load(handle)
        except FileNotFoundError:
            return {}


class ClientGone(Exception):
    pass


class Handler(http.server.BaseHTTPRequestHandler):
    # Headers and body go out in separate writes; without TCP_NODELAY the body waits ~40 ms for
    # the ACK of the headers (Nagle against the client's delayed ACK), which real servers avoid.
    disable_nagle_algorithm = True
    protocol_version = "HTTP/1.1"
    def version_string(self):
        return "xds-test-server/1"

    def log_message(self, format, *args):  # quiet: the JSON log is the record
        pass

    # --- plumbing -----------------------------------------------------------------------

    def start(self, status, headers):
        self.status_sent = status
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()

    def write_body(self, data):
        if self.command == "HEAD" or not data:
            return
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError) as error:
            raise ClientGone() from error
        self.body_sent += len(data)

    def write_chunk(self, data):
        if self.command == "HEAD":
            return
        try:
            self.wfile.write(b"%x\r\n" % len(data) + data + b"\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError) as error:
            raise ClientGone() from error
        self.body_sent += len(data)

    def end_chunks(self):
        if self.command == "HEAD":
            return
        try:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError) as error:
            raise ClientGone() from error

    def simple(self, status, body, headers=()):
        self.start(status, [("Content-Length", str(len(body)))] + list(headers))
        self.write_body(body)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        # Per request, not per connection: keep-alive connections carry several.
        self.body_sent = 0
        self.status_sent = None
        self.complete = False
        self.server.site.log_start({"server": self.server.name, "method": self.command, "path": self.path})
        try:
            self.route()
            self.complete = True
        except ClientGone:
            self.close_connection = True
        finally:
            self.server.site.log_request({
                "server": self.server.name,
                "method": self.command,
                "path": self.path,
                "headers": {name.lower(): value for name, value in self.headers.items()},
                "status": self.status_sent,
                "body_bytes_sent": self.body_sent,
                "complete": self.complete,
            })

    # --- routes -------------------------------------------------------------------------

    def route(self):
        parsed = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(parsed.path)
        query = dict(urllib.parse.parse_qsl(parsed.query))
        routes = self.server.site.load_routes()
        scripted = routes.get("routes", {}).get(path)
        if scripted is not None:
            return self.scripted(scripted)
        parts = path.split("/")
        if path.startswith("/redirect/") and len(parts) >= 3 and parts[2].isdigit():
            remaining = int(parts[2])
            rest = "/".join(parts[3:])
            target = f"/redirect/{remaining - 1}/{rest}" if remaining > 0 else f"/{rest}"
            status = int(query.get("status", "302"))
            if remaining > 0 and "status" in query:
                target += "?" + parsed.query
            return self.simple(status, b"", [("Location", target)])
        if path.startswith("/redirect-then-close/"):
            self.close_connection = True
            return self.simple(302, b"", [("Location", "/" + path[len("/redirect-then-close/"):])])
        if path == "/redirect-to":
            return self.simple(302, b"", [("Location", query.get("location", "/"))])
        if path.startswith("/downgrade/"):
            target = f"http://127.0.0.1:{self.server.site.ports['http']}/{path[len('/downgrade/'):]}"
            return self.simple(302, b"", [("Location", target)])
        if path.startswith("/status/") and parts[2].isdigit():
            return self.simple(int(parts[2]), f"status {parts[2]}".encode())
        if path.startswith("/big/") and parts[2].isdigit():
            return self.big(int(parts[2]), query.get("mode", "honest"))
        if path == "/slow/headers":
            time.sleep(float(query.get("delay", "5")))
            return self.simple(200, b"slow")
        if path == "/slow/body":
            return self.trickle(int(query.get("size", "100")), float(query.get("interval", "0.5")),
                                int(query.get("chunk", "1")))
        if path == "/gzip":
            body = gzip.compress(b"hello, gzip\n", mtime=0)
            return self.simple(200, body, [("Content-Encoding", "gzip"), ("Content-Type", "text/plain")])
        if path == "/echo-headers":
            body = json.dumps({k.lower(): v for k, v in self.headers.items()}).encode()
            return self.simple(200, body, [("Content-Type", "application/json")])
        return self.file(path, routes.get("headers", {}).get(path, {}))

    def scripted(self, spec):
        if spec.get("delay"):
            time.sleep(float(spec["delay"]))
        status = int(spec.get("status", 200))
        headers = list(spec.get("headers", {}).items())
        etag, modified = spec.get("etag"), spec.get("last_modified")
        if etag:
            headers.append(("ETag", etag))
        if modified:
            headers.append(("Last-Modified", modified))
        if status == 200 and self.not_modified(etag, modified):
            return self.start(304, headers)
        if "body_base64" in spec:
            body = base64.b64decode(spec["body_base64"])
        else:
            body = spec.get("body", "").encode()
        self.simple(status, body, headers)

    def not_modified(self, etag, modified):
        """RFC 9110 §13.2.2: If-None-Match wins over If-Modified-Since."""
        if_none_match = self.headers.get("If-None-Match")
        if if_none_match is not None:
            if etag is None:
                return False
            tags = [tag.strip() for tag in if_none_match.split(",")]
            weak = lambda tag: tag[2:] if tag.startswith("W/") else tag
            return "*" in tags or weak(etag) in [weak(tag) for tag in tags]
        if_modified_since = self.headers.get("If-Modified-Since")
        if if_modified_since is not None and modified is not None:
            try:
                since = email.utils.parsedate_to_datetime(if_modified_since)
                last = email.utils.parsedate_to_datetime(modified)
            except (TypeError, ValueError):
                return False
            return last <= since
        return False

    def file(self, path, extra_headers):
        relative = os.path.normpath(path.lstrip("/"))
        if relative.startswith("..") or os.path.isabs(relative):
            return self.simple(404, b"not found")
        full = os.path.join(self.server.site.root, relative)
        if not os.path.isfile(full):
            return self.simple(404, b"not found")
        with open(full, "rb") as handle:
            body = handle.read()
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        modified = email.utils.formatdate(int(os.stat(full).st_mtime), usegmt=True)
        headers = [("ETag", etag), ("Last-Modified", modified)] + list(extra_headers.items())
        if full.endswith(".json"):
            headers.append(("Content-Type", "application/json"))
        elif full.endswith(".png"):
            headers.append(("Content-Type", "image/png"))
        if self.not_modified(etag, modified):
            return self.start(304, headers)
        self.simple(200, body, headers)

    def big(self, size, mode):
        block = b"x" * 65536
        if mode == "chunked":
            self.start(200, [("Transfer-Encoding", "chunked")])
        elif mode == "close":
            self.close_connection = True
            self.start(200, [("Connection", "close")])
        else:
            self.start(200, [("Content-Length", str(size))])
        remaining = size
        while remaining > 0:
            piece = block[:min(remaining, len(block))]
            if mode == "chunked":
                self.write_chunk(piece)
            else:
                self.write_body(piece)
            remaining -= len(piece)
        if mode == "chunked":
            self.end_chunks()

    def trickle(self, size, interval, chunk):
        self.start(200, [("Content-Length", str(size))])
        remaining = size
        while remaining > 0:
            piece = b"y" * min(chunk, remaining)
            self.write_body(piece)
            remaining -= len(piece)
            if remaining > 0:
                time.sleep(interval)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, site, name, context=None):
        self.site = site
        self.name = name
        self.context = context
        super().__init__(("127.0.0.1", 0), Handler)

    def get_request(self):
        sock, address = super().get_request()
        if self.context is not None:
            # The handshake happens in the handler's thread (first read), so a client that
            # refuses the certificate never blocks the accept loop.
            sock = self.context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        return sock, address

    def handle_error(self, request, client_address):
        pass  # a client that hangs up mid-handshake is normal in these tests


def openssl(*arguments, cwd):
    subprocess.run(["openssl", *arguments], cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def make_certificates(work):
    """A test CA, a server certificate it signs, and a self-signed one; EC keys (fast)."""
    san = "subjectAltName=IP:127.0.0.1,DNS:localhost"
    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *key, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
            "-subj", "/CN=xds test CA",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=work)
    openssl("req", *key, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1", cwd=work)
    with open(os.path.join(work, "server.ext"), "w", encoding="utf-8") as handle:
        handle.write(san + "\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
                     "keyUsage=critical,digitalSignature\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "server.ext", cwd=work)
    openssl("req", "-x509", *key, "-keyout", "self.key", "-out", "self.pem", "-days", "2",
            "-subj", "/CN=127.0.0.1", "-addext", san, cwd=work)
    # Expired: valid from now to a day ago (openssl 3.0 takes a negative -days).
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "expired.pem", "-days", "-1", "-extfile", "server.ext", cwd=work)
    os.link(os.path.join(work, "server.key"), os.path.join(work, "expired.key"))
    with open(os.path.join(work, "wrong.ext"), "w", encoding="utf-8") as handle:
        handle.write("subjectAltName=DNS:wrong.example\nbasicConstraints=CA:FALSE\n"
                     "extendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "wrong.pem", "-days", "2", "-extfile", "wrong.ext", cwd=work)
    os.link(os.path.join(work, "server.key"), os.path.join(work, "wrong.key"))


def context(work, name):
    result = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    result.load_cert_chain(os.path.join(work, name + ".pem"), os.path.join(work, name + ".key"))
    return result


def open_site(site, work):
    """Five listeners for `site`, each served by its own thread."""
    site.servers = [Server(site, "http"), Server(site, "https", context(work, "server")),
                    Server(site, "https_self_signed", context(work, "self")),
                    Server(site, "https_expired", context(work, "expired")),
                    Server(site, "https_wrong_host", context(work, "wrong"))]
    for server in site.servers:
        site.ports[server.name] = server.server_address[1]
        threading.Thread(target=server.serve_forever, daemon=True).start()
    print(json.dumps({**site.ports, "ca": os.path.join(os.path.abspath(work), "ca.pem")}), flush=True)


def close_site(site):
    for server in site.servers:
        server.shutdown()
        server.server_close()


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", required=True, help="folder whose files are served")
    parser.add_argument("--work", required=True, help="folder for the test CA and certificates")
    parser.add_argument("--routes", help="JSON file of scripted routes and extra headers")
    parser.add_argument("--log", help="JSON Lines request log to append to")
    ARGS = parser.parse_args()
    os.makedirs(ARGS.work, exist_ok=True)
    make_certificates(ARGS.work)
    sites = {}
    first = Site(ARGS.root, ARGS.routes, ARGS.log)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    open_site(first, ARGS.work)
    sites[first.ports["http"]] = first
    # Stay up until the test closes our standard input (or it dies); take commands meanwhile.
    try:
        for line in sys.stdin:
            words = line.split()
            if len(words) == 4 and words[0] == "site":
                site = Site(words[1], words[2], words[3])
                open_site(site, ARGS.work)
                sites[site.ports["http"]] = site
            elif len(words) == 2 and words[0] == "close" and words[1].isdigit():
                site = sites.pop(int(words[1]), None)
                if site is not None:
                    close_site(site)
                print(json.dumps({"closed": int(words[1])}), flush=True)
    except (OSError, ValueError):
        pass
    os._exit(0)


if __name__ == "__main__":
    main()
