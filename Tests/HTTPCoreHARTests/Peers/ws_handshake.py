#!/usr/bin/env python3
"""A one-connection WebSocket server for the websocat command line test: accepts one
handshake, answers it with 101, reads the first message, and writes what it got to OUT as
JSON: `requestLine`, `headers` ([name, value] pairs in order), `opcode` and `payload`.

Usage: ws_handshake.py OUT    (prints "listening on PORT" first; exits after one connection)
"""
import base64
import hashlib
import json
import socket
import sys

server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(1)
server.settimeout(30)
print(f"listening on {server.getsockname()[1]}", flush=True)
connection, _ = server.accept()
connection.settimeout(10)
data = b""
while b"\r\n\r\n" not in data:
    chunk = connection.recv(4096)
    if not chunk:
        sys.exit(1)
    data += chunk
head, rest = data.split(b"\r\n\r\n", 1)
lines = head.decode().split("\r\n")
headers = [[name.strip(), value.strip()] for name, value in (line.split(":", 1) for line in lines[1:])]
keys = [value for name, value in headers if name.lower() == "sec-websocket-key"]
protocols = [value for name, value in headers if name.lower() == "sec-websocket-protocol"]
accept = base64.b64encode(hashlib.sha1((keys[0] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()).decode()
answer = f"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n"
if protocols:
    answer += f"Sec-WebSocket-Protocol: {protocols[0]}\r\n"
connection.sendall((answer + "\r\n").encode())
frame = rest
while len(frame) < 2 or len(frame) < 6 + (frame[1] & 0x7F):
    chunk = connection.recv(4096)
    if not chunk:
        break
    frame += chunk
# A client's frame is masked; messages here are short (under 126 bytes).
length, mask = frame[1] & 0x7F, frame[2:6]
payload = bytes(byte ^ mask[index % 4] for index, byte in enumerate(frame[6:6 + length]))
with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump({"requestLine": lines[0], "headers": headers, "opcode": frame[0] & 0x0F, "payload": payload.decode()}, out)
connection.close()
