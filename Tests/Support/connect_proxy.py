#!/usr/bin/env python3
"""A loopback HTTP proxy for the xds tests (Python 3.11 standard library only).

    connect_proxy.py --log LOG.jsonl [--tls CERT.pem KEY.pem]

Listens on 127.0.0.1 (port chosen by the system) and prints ONE JSON line when ready:
  {"port": PORT}
It answers `CONNECT host:port` by opening a TCP tunnel (what curl does for https through an
http proxy), and forwards a plain `GET http://host:port/path` (http through the proxy) with
"Connection: close". Every request line is logged to --log as one JSON line when it arrives:
  {"method": "CONNECT", "target": "127.0.0.1:4433"}
It never reaches beyond 127.0.0.1 / localhost (anything else is answered 403), and exits when
its standard input reaches end of file or on SIGTERM. With --tls it is an https proxy: each
client connection is TLS with that certificate (the tunnel inside carries the client's own TLS
to the server).
"""

import argparse
import json
import os
import select
import signal
import socket
import socketserver
import ssl
import sys
import threading
import urllib.parse

ARGS = None
LOCK = threading.Lock()
LOCAL = {"127.0.0.1", "localhost", "::1", "[::1]"}


def log(entry):
    with LOCK:
        with open(ARGS.log, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry, sort_keys=True) + "\n")


def splice(a, b):
    sockets = [a, b]
    try:
        while True:
            readable, _, _ = select.select(sockets, [], [], 60)
            if not readable:
                return
            for source in readable:
                data = source.recv(65536)
                if not data:
                    return
                # TLS may hold decrypted bytes that select() cannot see: take them now.
                while isinstance(source, ssl.SSLSocket) and source.pending():
                    data += source.recv(source.pending())
                (b if source is a else a).sendall(data)
    except OSError:
        return


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        client = self.request
        if ARGS.tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(ARGS.tls[0], ARGS.tls[1])
            try:
                client = context.wrap_socket(client, server_side=True)
            except (ssl.SSLError, OSError):
                return  # the client refused our certificate
        head = b""
        while b"\r\n\r\n" not in head:
            data = client.recv(4096)
            if not data:
                return
            head += data
        header, rest = head.split(b"\r\n\r\n", 1)
        lines = header.decode("latin-1").split("\r\n")
        method, target, _ = (lines[0].split(" ") + ["", ""])[:3]
        log({"method": method, "target": target})
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            if host not in LOCAL:
                client.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
                return
            try:
                upstream = socket.create_connection((host.strip("[]"), int(port)), timeout=10)
            except OSError:
                client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
                return
            client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            if rest:
                upstream.sendall(rest)
            splice(client, upstream)
            upstream.close()
            return
        url = urllib.parse.urlsplit(target)
        if url.scheme != "http" or url.hostname not in LOCAL:
            client.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        try:
            upstream = socket.create_connection((url.hostname, url.port or 80), timeout=10)
        except OSError:
            client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        path = url.path or "/"
        if url.query:
            path += "?" + url.query
        kept = [line for line in lines[1:] if not line.lower().startswith(("connection:", "proxy-"))]
        request = "\r\n".join([f"{method} {path} HTTP/1.1"] + kept + ["Connection: close", "", ""])
        upstream.sendall(request.encode("latin-1") + rest)
        splice(client, upstream)
        upstream.close()


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--log", required=True, help="JSON Lines request log to append to")
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="be an https proxy with this certificate")
    ARGS = parser.parse_args()
    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except (OSError, ValueError):
        pass
    os._exit(0)


if __name__ == "__main__":
    main()
