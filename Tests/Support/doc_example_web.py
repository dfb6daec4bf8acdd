#!/usr/bin/env python3
"""The web as the doc examples see it (Python 3 standard library and the openssl command).

    doc_example_web.py --root ROOT --work WORK

Each folder of ROOT is a host (ROOT/workingcopy.app, ROOT/example.com). In WORK it makes a test
CA (WORK/ca.pem) and one certificate it signs for all those host names, then listens on
127.0.0.1 as an HTTP proxy and prints ONE JSON line when ready: {"port": PORT}. With
HTTPS_PROXY=http://127.0.0.1:PORT and SSL_CERT_FILE=WORK/ca.pem, `xds icon` fetching
https://workingcopy.app/appInfo.json gets ROOT/workingcopy.app/appInfo.json over real TLS,
through a real proxy, and nothing leaves the machine: it answers `CONNECT HOST:443` for a HOST
of ROOT by speaking TLS itself, serves GET and HEAD from ROOT/HOST (files only: 404 otherwise),
and answers anything else with 403. Exits when its standard input reaches end of file.
"""

import argparse
import http.server
import json
import os
import socket
import ssl
import subprocess
import sys
import threading

ARGS = None


def openssl(*arguments):
    subprocess.run(["openssl", *arguments], cwd=ARGS.work, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def make_certificates(hosts):
    """A test CA and a certificate for `hosts` it signs; EC keys (fast)."""
    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *key, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
            "-subj", "/CN=xds doc examples CA",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    openssl("req", *key, "-keyout", "site.key", "-out", "site.csr", "-subj", "/CN=" + hosts[0])
    with open(os.path.join(ARGS.work, "site.ext"), "w", encoding="utf-8") as handle:
        handle.write("subjectAltName=" + ",".join("DNS:" + host for host in hosts)
                     + "\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
                     "keyUsage=critical,digitalSignature\n")
    openssl("x509", "-req", "-in", "site.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "site.pem", "-days", "2", "-extfile", "site.ext")


class Site(http.server.SimpleHTTPRequestHandler):
    """Serves one host's folder over the TLS connection a CONNECT opened."""
    protocol_version = "HTTP/1.1"
    timeout = 30

    def list_directory(self, path):
        self.send_error(404)
        return None

    def log_message(self, format, *args):
        pass


class Settings:
    """What BaseRequestHandler expects of its server."""


def tunnel(connection, context, hosts):
    try:
        head = b""
        while b"\r\n\r\n" not in head:
            data = connection.recv(4096)
            if not data or len(head) > 65536:
                return
            head += data
        words = head.split(b"\r\n", 1)[0].decode("latin-1").split()
        host, _, port = words[1].rpartition(":") if len(words) == 3 else ("", "", "")
        if words[0] != "CONNECT" or host not in hosts or port != "443":
            connection.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        connection.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        secure = context.wrap_socket(connection, server_side=True)
        Site(secure, ("127.0.0.1", 0), Settings(), directory=os.path.join(ARGS.root, host))
    except (OSError, ssl.SSLError, IndexError):
        pass
    finally:
        connection.close()


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", required=True, help="one folder per host, its files served")
    parser.add_argument("--work", required=True, help="folder for the test CA and certificate")
    ARGS = parser.parse_args()
    os.makedirs(ARGS.work, exist_ok=True)
    hosts = sorted(name for name in os.listdir(ARGS.root) if os.path.isdir(os.path.join(ARGS.root, name)))
    make_certificates(hosts)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(os.path.join(ARGS.work, "site.pem"), os.path.join(ARGS.work, "site.key"))
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)

    def accept():
        while True:
            connection, _ = listener.accept()
            threading.Thread(target=tunnel, args=(connection, context, hosts), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    print(json.dumps({"port": listener.getsockname()[1]}), flush=True)
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    main()
