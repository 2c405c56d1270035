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

A page on another site calls with an ``Origin`` header: it is carried in the call's
credentials, and the use cases accept it only for an app whose policy lists that
origin (``services/origins.py``); the page served from this port is same-origin.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from typing import Any, NoReturn, cast

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.method import IdempotencyLevel, MethodInfo
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import DecodeError, Message
from google.rpc import status_pb2

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
    they use (checked by tests/service/test_browser.py calling every method)."""
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
    """The call a servicer sees for this request: its headers as metadata, the
    ``Origin`` of a page on another site under the name the credentials read."""
    headers = ctx.request_headers()
    host = headers.get("host", "")
    metadata: list[tuple[str, str]] = []
    for name, value in headers.items():
        lowered = name.lower()
        if lowered == ORIGIN_METADATA:
            continue  # only this gateway says where a call comes from
        if lowered == "origin":
            if not is_same_origin(value, host):
                metadata.append((ORIGIN_METADATA, value))
            continue
        metadata.append((lowered, value))
    return BrowserCall(tuple(metadata), peer_of(ctx.client_address()))


def _endpoints(servicer: object, service: ServiceDescriptor) -> dict[str, Any]:
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
                info, _stream_function(method.name, behavior, check)
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
    name: str, behavior: Any, check: Any
) -> Callable[[Any, RequestContext[Any, Any]], AsyncIterator[Any]]:
    handle = guarded_stream(name, behavior)

    async def call(request: Any, ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
        metrics.BROWSER_CALLS.labels(name).inc()
        async for item in handle(_checked(request, check), as_context(call_of(ctx))):
            yield item

    return call


class ServiceApp(ConnectASGIApplication[object]):
    """One service's endpoints, as connect-python serves them (Connect, gRPC-Web,
    and gRPC where the HTTP server sends trailers)."""

    def __init__(
        self,
        servicer: object,
        service: ServiceDescriptor,
        read_max_bytes: int,
    ) -> None:
        self._path = f"/{service.full_name}"
        super().__init__(
            service=servicer,
            endpoints=lambda s: _endpoints(s, service),
            read_max_bytes=read_max_bytes,
        )

    @property
    def path(self) -> str:
        return self._path


def service_apps(
    services: Iterable[tuple[object, ServiceDescriptor]],
    read_max_bytes: int,
) -> Mapping[str, ServiceApp]:
    """Each service's app by its path prefix ("/tranca.v1.GameService")."""
    apps = [ServiceApp(servicer, service, read_max_bytes) for servicer, service in services]
    return {app.path: app for app in apps}
