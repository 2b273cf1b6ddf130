"""A WebSocket server for HTTPCoreWebSocketTests (PyPI's websockets 17).

Prints its port on its first line, then serves on 127.0.0.1 until killed (or after the
seconds given as its first argument, so a lost peer never outlives a test run for long).
Each text message is a command; anything else is echoed:
  fragment      -> one text message sent as three frames
  ping          -> a ping the client must answer
  close         -> close 4000 "server says bye"
  cut           -> the TCP connection cut with no close frame
  flood:N       -> N text messages m0..m{N-1}
  big:N         -> one text message of N KiB of "x", sent as N frames of 1 KiB
  a graphql-transport-ws message (JSON with a "type") -> the graphql-ws answer
/denied is refused with 401 before the upgrade; /hang never answers the handshake.
"""
import asyncio
import json
import sys
from http import HTTPStatus

from websockets.asyncio.server import serve


async def graphql(ws, message):
    kind = message.get("type")
    if kind == "connection_init":
        await ws.send(json.dumps({"type": "connection_ack"}))
    elif kind == "subscribe":
        await ws.send(json.dumps({"id": message["id"], "type": "next", "payload": {"data": {"greeting": "hello"}}}))
        await ws.send(json.dumps({"id": message["id"], "type": "complete"}))
    elif kind == "ping":
        await ws.send(json.dumps({"type": "pong"}))


async def handler(ws):
    async for msg in ws:
        if msg == "fragment":
            await ws.send(["frag-1 ", "frag-2 ", "frag-3"])
        elif msg == "ping":
            await ws.ping(b"p1")
            await ws.send("pinged")
        elif msg == "close":
            await ws.close(4000, "server says bye")
            return
        elif msg == "cut":
            ws.transport.abort()
            return
        elif isinstance(msg, str) and msg.startswith("big:"):
            await ws.send("x" * 1024 for _ in range(int(msg[4:])))
        elif isinstance(msg, str) and msg.startswith("flood:"):
            for i in range(int(msg[6:])):
                await ws.send(f"m{i}")
        elif ws.subprotocol == "graphql-transport-ws" and isinstance(msg, str) and msg.startswith("{"):
            await graphql(ws, json.loads(msg))
        else:
            await ws.send(msg)


def select_subprotocol(connection, subprotocols):
    # websockets refuses a client that offers no subprotocol when the server lists some.
    return "graphql-transport-ws" if "graphql-transport-ws" in subprotocols else None


async def reject(connection, request):
    if request.path == "/hang":
        await asyncio.sleep(3600)
    if request.path == "/denied":
        return connection.respond(HTTPStatus.UNAUTHORIZED, "no\n")


async def main():
    async with serve(handler, "127.0.0.1", 0, ping_interval=None, compression=None, max_size=None,
                     select_subprotocol=select_subprotocol, process_request=reject) as server:
        print(f"listening on {server.sockets[0].getsockname()[1]}", flush=True)
        await asyncio.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 600)


asyncio.run(main())
