"""The services as browsers call them: the Connect protocol (JSON or binary, unary
calls by POST, server streams) and gRPC-Web, with the protocol work done by
connect-python.

Nothing is written twice. Each method's endpoint runs the very handler the gRPC port
registers (``edge.add_service``): the servicer method behind the same edge checks
(the contracts' string limits, a refused request answered MALFORMED_REQUEST) and the
same metrics, credentials, rate limits and refusals. The servicers read three things
of their call, its metadata, its peer and how to refuse it, so an HTTP request is
handed to them as a ``BrowserCall`` offering exactly those: the request headers as
metadata (``x-api-key``, ``authorization``, ``accept-language``, the request id
header), the client's address as the peer, and a refusal turned into a Connect error
whose details hold the same google.rpc.ErrorInfo and google.rpc.LocalizedMessage a
gRPC client finds in ``grpc-status-details-bin``.

A server stream ends when its client goes, as on the gRPC port: a page closed or
reloaded closes its connection (HTTP/1.1) or cancels its stream (HTTP/2), which
the HTTP server reports as ``http.disconnect``; the stream's handler is then
cancelled where it waits, so it gives back its watch slot and stops counting as
its player's presence (``OpenStreams``). A client lost without a word is found by
the port's TCP keepalive (``web_port.py``).

A page on another site calls with an ``Origin`` header: it is carried in the call's
credentials, and the use cases accept it only for an app whose policy lists that
origin (``services/origins.py``); the page served from this port is same-origin.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from typing import Any, NoReturn, cast

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.method import IdempotencyLevel, MethodInfo
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import DecodeError, Message
from google.rpc import status_pb2
from grpc_reflection.v1alpha import reflection_pb2
from grpc_reflection.v1alpha.reflection import aio as reflection_aio

from .. import metrics
from ..services.errors import malformed
from .context import ORIGIN_METADATA, Ctx
from .edge import Rejected, breaks_limits, checker, guarded_stream, guarded_unary
from .errors import rich_status, to_api_error

# grpc-status-details-bin: where a refusal's google.rpc.Status travels in gRPC.
_DETAILS_KEY = "grpc-status-details-bin"


class _Codec:
    """Connect's codecs with two changes: a body that does not decode is refused as
    the gRPC port refuses it (INVALID_ARGUMENT, reason MALFORMED_REQUEST, in the
    ErrorInfo), not as an unknown error; and JSON answers are written compactly
    (the library indents them)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def name(self) -> str:
        return self._name

    def encode(self, message: Message) -> bytes:
        if self._name == "proto":
            return message.SerializeToString()
        return json_format.MessageToJson(message, indent=None).encode()

    def decode(self, data: bytes | bytearray, message: Any) -> Any:
        try:
            if self._name == "proto":
                message.ParseFromString(bytes(data))
            else:
                json_format.Parse(bytes(data), message)
        except (json_format.ParseError, DecodeError, ValueError, UnicodeDecodeError) as exc:
            kind = "JSON" if self._name == "json" else "binary"
            error = to_api_error(
                malformed(f"the body is not a valid {message.DESCRIPTOR.name} ({kind})")
            )
            assert error is not None
            raise refusal_as_connect_error(rich_status(error)) from exc
        return message


def _install_codecs() -> None:
    # connect-python 0.9 keeps its codecs in one registry, read per request.
    from connectrpc import _codec

    json_codec = _Codec("json")
    _codec._codecs.update(
        {
            _codec.CODEC_NAME_PROTO: _Codec("proto"),
            _codec.CODEC_NAME_JSON: json_codec,
            _codec.CODEC_NAME_JSON_CHARSET_UTF8: json_codec,
        }
    )


_install_codecs()


# How a stream ended by the port says why (the end of stream's error message).
GONE = "the client went away"
STOPPING = "the server is stopping: watch again (another replica, or this one restarted)"


class RequestCall:
    """One request on the browser port, as its stream (when it is one) is ended
    from outside: by its client's going (``gone``) or by the port's stop.

    A stream whose client went is cancelled wherever it is, even inside a write
    that would never finish (Hypercorn keeps an HTTP/2 stream's unsent data after
    its connection closes), and nothing more is written for it. One ended by the
    stop is cancelled only while its handler waits for its next message
    (``waiting``), never while a message is written; ended otherwise, it stops
    before it next waits. It then ends with UNAVAILABLE, which tells the client to
    watch again, rather than without error, which for WatchGame means the match is
    over."""

    __slots__ = ("_cancelled", "ended", "gone", "streaming", "task", "waiting")

    def __init__(self, task: asyncio.Task[Any]) -> None:
        self.task = task
        self.ended: tuple[Code, str] | None = None
        self.gone = False  # the client went: nothing is written any more
        self.streaming = False  # a server stream's handler runs
        self.waiting = False  # ... and waits for its next message
        self._cancelled = False

    def end(self, code: Code, message: str, *, gone: bool = False) -> None:
        self.gone = self.gone or gone
        if self.ended is None:
            self.ended = (code, message)
        if self.streaming and (self.waiting or self.gone) and not self._cancelled:
            self._cancelled = True
            self.task.cancel()

    def settle(self) -> ConnectError:
        """The error the ended stream finishes with; the task's cancellation, which
        was this call's doing, taken back."""
        assert self.ended is not None
        if self._cancelled:
            self._cancelled = False
            self.task.uncancel()
        return ConnectError(*self.ended)


# The request the running task serves (set by ServiceApp for each request).
_REQUEST: contextvars.ContextVar[RequestCall | None] = contextvars.ContextVar(
    "browser_request", default=None
)


class OpenStreams:
    """The server streams open on the browser port, which its stop ends."""

    def __init__(self) -> None:
        self._open: set[RequestCall] = set()
        self.stopping = False

    def add(self, call: RequestCall) -> None:
        if self.stopping:
            call.end(Code.UNAVAILABLE, STOPPING)
        self._open.add(call)

    def discard(self, call: RequestCall) -> None:
        self._open.discard(call)

    def end_all(self) -> None:
        """End every open stream with UNAVAILABLE, and any opened from now on."""
        self.stopping = True
        for call in list(self._open):
            call.end(Code.UNAVAILABLE, STOPPING)


def connect_code(code: grpc.StatusCode) -> Code:
    """The Connect code of a gRPC status code (the same names; one spelt otherwise)."""
    if code is grpc.StatusCode.CANCELLED:
        return Code.CANCELED
    return Code[code.name]


class BrowserCall:
    """An HTTP request as a servicer reads its call: ``invocation_metadata``,
    ``peer`` and ``abort_with_status``, the parts of grpc.aio.ServicerContext the
    servicers use (api/context.py, api/errors.py)."""

    __slots__ = ("_metadata", "_peer")

    def __init__(self, metadata: tuple[tuple[str, str], ...], peer: str) -> None:
        self._metadata = metadata
        self._peer = peer

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def peer(self) -> str:
        return self._peer

    async def abort_with_status(self, status: grpc.Status) -> NoReturn:
        raise refusal_as_connect_error(status)


def refusal_as_connect_error(status: grpc.Status) -> ConnectError:
    """A refusal as ``api.errors.rich_status`` built it, as a Connect error with the
    same code, message and details."""
    details: list[Any] = []
    for key, value in status.trailing_metadata or ():
        if key == _DETAILS_KEY and isinstance(value, bytes):
            details.extend(status_pb2.Status.FromString(value).details)
    return ConnectError(connect_code(status.code), status.details or "", details)


def as_context(call: BrowserCall) -> Ctx:
    """The call typed as the context the servicers take: it offers the part of it
    they use (checked by tests/server/test_browser.py calling every method)."""
    return cast("Ctx", call)


def peer_of(client_address: str | None) -> str:
    """The gRPC form of a peer ("ipv4:1.2.3.4:5678", "ipv6:[::1]:5678"), which
    ``context.peer_address`` reads."""
    if not client_address:
        return ""
    host, _, port = client_address.rpartition(":")
    if ":" in host:
        return f"ipv6:[{host.strip('[]')}]:{port}"
    return f"ipv4:{host}:{port}"


def is_same_origin(origin: str, host: str) -> bool:
    """Whether ``origin`` is this server's own (the page it served): the Host the
    request was sent to, under http or https."""
    return bool(host) and origin in (f"http://{host}", f"https://{host}")


def call_of(ctx: RequestContext[Any, Any]) -> BrowserCall:
    """The call a servicer sees for this request: its headers as metadata, every
    value of a header sent more than once included (as gRPC metadata holds them: the
    credentials' rule refuses a credential header sent twice, rather than this port
    keeping the first), the ``Origin`` of a page on another site under the name the
    credentials read."""
    headers = ctx.request_headers()
    host = headers.get("host", "")
    metadata: list[tuple[str, str]] = []
    for name, value in headers.allitems():
        lowered = name.lower()
        if lowered == ORIGIN_METADATA:
            continue  # only this gateway says where a call comes from
        if lowered == "origin":
            if not is_same_origin(value, host):
                metadata.append((ORIGIN_METADATA, value))
            continue
        metadata.append((lowered, value))
    return BrowserCall(tuple(metadata), peer_of(ctx.client_address()))


def _endpoints(
    servicer: object, service: ServiceDescriptor, streams: OpenStreams
) -> dict[str, Any]:
    endpoints: dict[str, Any] = {}
    for method in service.methods:
        request_cls = message_factory.GetMessageClass(method.input_type)
        info: MethodInfo[Any, Any] = MethodInfo(
            name=method.name,
            service_name=service.full_name,
            input=request_cls,
            output=message_factory.GetMessageClass(method.output_type),
            idempotency_level=IdempotencyLevel.UNKNOWN,
        )
        check = checker(request_cls.DESCRIPTOR)
        behavior = getattr(servicer, method.name)
        path = f"/{service.full_name}/{method.name}"
        if method.server_streaming:
            endpoints[path] = Endpoint.server_stream(
                info, _stream_function(method.name, behavior, check, streams)
            )
        else:
            endpoints[path] = Endpoint.unary(info, _unary_function(method.name, behavior, check))
    return endpoints


def _checked(request: Any, check: Any) -> Any:
    """The request as the gRPC port's decoder hands it on: itself, or ``Rejected``
    where it breaks the contracts' limits (the body itself was decoded by Connect)."""
    if check is None:
        return request
    found = check(request)
    if found is None:
        return request
    return Rejected(breaks_limits(found))


def _unary_function(
    name: str, behavior: Any, check: Any
) -> Callable[[Any, RequestContext[Any, Any]], Any]:
    handle = guarded_unary(name, behavior)

    async def call(request: Any, ctx: RequestContext[Any, Any]) -> Any:
        metrics.BROWSER_CALLS.labels(name).inc()
        return await handle(_checked(request, check), as_context(call_of(ctx)))

    return call


def _stream_function(
    name: str, behavior: Any, check: Any, streams: OpenStreams
) -> Callable[[Any, RequestContext[Any, Any]], AsyncIterator[Any]]:
    handle = guarded_stream(name, behavior)

    async def call(request: Any, ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
        metrics.BROWSER_CALLS.labels(name).inc()
        request_call = _REQUEST.get()
        assert request_call is not None, "a stream is served only inside ServiceApp"
        items = handle(_checked(request, check), as_context(call_of(ctx)))
        streams.add(request_call)
        request_call.streaming = True
        try:
            # No loop variable: it would keep the last message alive while the
            # stream waits.
            while True:
                if request_call.ended is not None:
                    raise request_call.settle()
                request_call.waiting = True
                try:
                    yield await anext(items)
                except StopAsyncIteration:
                    return
                except BaseException:
                    if request_call.ended is None:
                        raise
                    # Cancelled by ``end``: the handler has let go of what it held.
                    raise request_call.settle() from None
                finally:
                    request_call.waiting = False
        finally:
            request_call.streaming = False
            streams.discard(request_call)
            await items.aclose()

    return call


class ServiceApp(ConnectASGIApplication[object]):
    """One service's endpoints, as connect-python serves them (Connect, gRPC-Web,
    and gRPC where the HTTP server sends trailers)."""

    def __init__(
        self,
        servicer: object,
        service: ServiceDescriptor,
        read_max_bytes: int,
        streams: OpenStreams,
    ) -> None:
        self._path = f"/{service.full_name}"
        super().__init__(
            service=servicer,
            endpoints=lambda s: _endpoints(s, service, streams),
            read_max_bytes=read_max_bytes,
        )

    @property
    def path(self) -> str:
        return self._path

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        task = asyncio.current_task()
        assert task is not None
        request_call = RequestCall(task)

        # connect-python reads the request's body, then (for a server stream) waits
        # on ``receive`` for the client's going; it only looks at what it heard
        # when a message is to be sent, which a watch stream may not have for
        # hours. Hearing it here ends the stream at once.
        async def receiving() -> Any:
            message = await receive()
            if message["type"] == "http.disconnect":
                request_call.end(Code.CANCELED, GONE, gone=True)
            return message

        # Nothing is written for a client that went, nor by a task the HTTP server
        # cancels (its stop's grace run out): Hypercorn would hold such a write for
        # ever (an HTTP/2 stream's data whose connection has closed).
        async def sending(message: Any) -> None:
            if not request_call.gone and not task.cancelling():
                await send(message)

        reset = _REQUEST.set(request_call)
        try:
            await super().__call__(scope, receiving, sending)
        except ConnectError:
            # connect-python's answer to a cancellation in its own code (a write cut
            # short): it has closed the stream; the client was gone.
            if not request_call.gone:
                raise
            request_call.settle()
        finally:
            _REQUEST.reset(reset)


def service_apps(
    services: Iterable[tuple[object, ServiceDescriptor]],
    read_max_bytes: int,
    streams: OpenStreams,
) -> Mapping[str, ServiceApp]:
    """Each service's app by its path prefix ("/tranca.v1.GameService"), their
    streams in ``streams``."""
    apps = [
        ServiceApp(servicer, service, read_max_bytes, streams) for servicer, service in services
    ]
    return {app.path: app for app in apps}


# Server reflection on the browser port, for tools that read the contracts from
# the server (``buf curl --reflect``, Postman, grpcurl over a gRPC-Web proxy): both
# versions of grpc.reflection's ServerReflection, a bidirectional stream, over
# Connect, gRPC-Web and gRPC (each over HTTP/2; Connect also over HTTP/1.1, with the
# whole request stream sent first). v1 is v1alpha renamed, message for message, so
# one servicer answers both.
REFLECTION_V1ALPHA = "grpc.reflection.v1alpha.ServerReflection"
REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"
_V1_FILE = "grpc/reflection/v1/reflection.proto"


def _reflection_v1() -> ServiceDescriptor:
    """grpc.reflection.v1's service, its file added to the default pool (where the
    contracts' descriptors are) when no library has put it there."""
    pool = descriptor_pool.Default()
    try:
        return pool.FindFileByName(_V1_FILE).services_by_name["ServerReflection"]
    except KeyError:
        pass
    proto = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(proto)
    proto.name = _V1_FILE
    proto.package = "grpc.reflection.v1"
    proto.ClearField("options")
    renamed = (".grpc.reflection.v1alpha.", ".grpc.reflection.v1.")
    for message in proto.message_type:
        for field in message.field:
            if field.HasField("type_name"):
                field.type_name = field.type_name.replace(*renamed)
    for service in proto.service:
        for method in service.method:
            method.input_type = method.input_type.replace(*renamed)
            method.output_type = method.output_type.replace(*renamed)
    pool.Add(proto)
    return pool.FindFileByName(_V1_FILE).services_by_name["ServerReflection"]


class ReflectionApp(ConnectASGIApplication[object]):
    """ServerReflection in one version (``service``), over the servicer of
    grpc_reflection that the gRPC port runs, listing ``names``."""

    def __init__(
        self, service: ServiceDescriptor, servicer: reflection_aio.ReflectionServicer
    ) -> None:
        self._path = f"/{service.full_name}"
        method = service.methods_by_name["ServerReflectionInfo"]
        request_cls: Any = message_factory.GetMessageClass(method.input_type)
        response_cls: Any = message_factory.GetMessageClass(method.output_type)
        alpha = service.full_name == REFLECTION_V1ALPHA

        async def as_alpha(requests: AsyncIterator[Any]) -> AsyncIterator[Any]:
            async for request in requests:
                yield (
                    request
                    if alpha
                    else reflection_pb2.ServerReflectionRequest.FromString(
                        request.SerializeToString()
                    )
                )

        async def info(requests: AsyncIterator[Any], _ctx: RequestContext[Any, Any]) -> Any:
            metrics.BROWSER_CALLS.labels(method.name).inc()
            async for answer in servicer.ServerReflectionInfo(as_alpha(requests), None):
                yield answer if alpha else response_cls.FromString(answer.SerializeToString())

        endpoint = Endpoint.bidi_stream(
            MethodInfo(
                name=method.name,
                service_name=service.full_name,
                input=request_cls,
                output=response_cls,
                idempotency_level=IdempotencyLevel.UNKNOWN,
            ),
            info,
        )
        super().__init__(
            service=servicer,
            endpoints=lambda _s: {f"{self._path}/{method.name}": endpoint},
        )

    @property
    def path(self) -> str:
        return self._path


def reflection_apps(service_names: Iterable[str]) -> Mapping[str, ReflectionApp]:
    """Both versions of ServerReflection by their path prefix, listing
    ``service_names`` and themselves, and describing every file of the default pool
    (the contracts, google.rpc's error details, the well-known types)."""
    v1 = _reflection_v1()
    names = (*service_names, REFLECTION_V1, REFLECTION_V1ALPHA)
    servicer = reflection_aio.ReflectionServicer(names)
    alpha = reflection_pb2.DESCRIPTOR.services_by_name["ServerReflection"]
    apps = [ReflectionApp(service, servicer) for service in (v1, alpha)]
    return {app.path: app for app in apps}
