"""URLs on the command line: ``--storage-option``, ``--debug`` and one line per failed request.

Every argument of a command may be a URL (``s3://bucket/key``, ``gs://``,
``memory://``, ``https://``...). Its file system takes its options from the
usual places -- the protocol's own environment variables (``AWS_ACCESS_KEY_ID``,
``AWS_ENDPOINT_URL``, ``GOOGLE_APPLICATION_CREDENTIALS``...), fsspec's
``FSSPEC_<PROTOCOL>_<OPTION>`` variables -- and from ``--storage-option
KEY=VALUE`` (repeatable), which wins. ``KEY`` may be dotted for a nested option
(``client_kwargs.region_name=eu-west-1``); ``VALUE`` is read as JSON when it
is JSON (``true``, ``3``, ``{"a": 1}``) and as text otherwise.

The options reach every file system the command opens through fsspec's
per-protocol defaults (``fsspec.config.conf``), set for the protocols of the
command's URLs while it runs, so no reading layer needs an extra parameter.

A network or credential error becomes one line: what failed, the URL and the
server's error code (exit 2); ``--debug`` prints the traceback before it.
"""
import argparse
import errno
import json
import socket
from contextlib import contextmanager

from pqkit.filesystems import is_url

# Exceptions from these packages are about the store, its credentials or the network.
_REMOTE_PACKAGES = frozenset({"botocore", "aiobotocore", "aiohttp", "s3fs", "gcsfs", "google",
                              "adlfs", "azure", "requests", "urllib3", "fsspec"})
_DENIED = {"AccessDenied", "AllAccessDisabled", "Forbidden", "403"}
_BAD_CREDENTIALS = {"InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken",
                    "InvalidToken", "TokenRefreshRequired", "AuthorizationHeaderMalformed",
                    "401"}
_MISSING = {"NoSuchKey": "no object", "NoSuchBucket": "no bucket", "404": "no object"}


def storage_option(text):
    """An argparse type: ``KEY=VALUE`` -> (list of key parts, value)."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip() or any(not part for part in key.strip().split(".")):
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE (e.g. endpoint_url=http://"
                                         f"127.0.0.1:9000), got {text!r}")
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = value
    return key.strip().split("."), parsed


def add_url_arguments(parser, nested=False):
    """``--storage-option`` and ``--debug`` (``nested``: on a parser below one that already
    has them, so that its defaults do not reset what the outer one parsed)."""
    parser.add_argument("--storage-option", type=storage_option, action="append",
                        dest="storage_options", metavar="KEY=VALUE",
                        default=argparse.SUPPRESS if nested else None,
                        help="an option of the URLs' file system, e.g. endpoint_url=http://"
                             "host:9000, anon=true, client_kwargs.region_name=eu-west-1 "
                             "(repeatable; besides the protocol's environment variables)")
    parser.add_argument("--debug", action="store_true",
                        default=argparse.SUPPRESS if nested else False,
                        help="print the full traceback of an error")


def options_dict(pairs):
    """The nested dict of ``--storage-option`` pairs."""
    out = {}
    for keys, value in pairs or ():
        node = out
        for k in keys[:-1]:
            if not isinstance(node.get(k), dict):
                node[k] = {}
            node = node[k]
        node[keys[-1]] = value
    return out


def urls_of(args):
    """Every URL among the values of the parsed arguments, in order."""
    found = []
    for value in vars(args).values():
        values = value if isinstance(value, (list, tuple)) else [value]
        found.extend(v for v in values if is_url(v) and v not in found)
    return found


class StorageOptionError(ValueError):
    """--storage-option given to a command without a URL."""


def _merged(base, extra):
    out = dict(base or {})
    for k, v in extra.items():
        out[k] = _merged(out.get(k), v) if isinstance(v, dict) and isinstance(
            out.get(k), dict) else v
    return out


@contextmanager
def storage_options_applied(args):
    """While the command runs, its ``--storage-option`` values are the defaults of the
    file systems of its URLs' protocols."""
    options = options_dict(getattr(args, "storage_options", None))
    if not options:
        yield
        return
    urls = urls_of(args)
    if not urls:
        raise StorageOptionError("--storage-option applies to URLs (s3://..., gs://...), "
                                 "and no argument is one")
    from fsspec.config import conf
    protocols = {u.split("://", 1)[0] for u in urls}
    saved = {p: conf[p] for p in protocols if p in conf}
    for p in protocols:
        conf[p] = _merged(saved.get(p), options)
    try:
        yield
    finally:
        for p in protocols:
            if p in saved:
                conf[p] = saved[p]
            else:
                conf.pop(p, None)


# --- one line for a failed request -------------------------------------------------------------
def _chain(exc):
    """``exc`` and the exceptions it was raised from or while handling, outermost first."""
    seen = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    return seen


def _is_remote(exc):
    return (type(exc).__module__.split(".")[0] in _REMOTE_PACKAGES
            or isinstance(exc, (ConnectionError, TimeoutError, socket.gaierror)))


def _server_code(chain):
    """(error code, HTTP status) the server answered with, or (None, None)."""
    for exc in chain:
        response = getattr(exc, "response", None)
        if isinstance(response, dict) and "Error" in response:          # botocore ClientError
            status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            return response["Error"].get("Code"), status
        status = getattr(exc, "status", None) or getattr(exc, "code", None)
        if isinstance(status, int) and 100 <= status < 600:              # aiohttp, google
            return None, status
    return None, None


def _socket_reason(chain):
    """'connection refused (ECONNREFUSED)' and the like, from the innermost OSError."""
    for exc in reversed(chain):
        if isinstance(exc, socket.gaierror):
            return f"host name not resolved ({exc.strerror or exc})"
        if isinstance(exc, OSError) and exc.errno in errno.errorcode:
            return f"{exc.strerror or 'error'} ({errno.errorcode[exc.errno]})"
        if isinstance(exc, TimeoutError) or "Timeout" in type(exc).__name__:
            return "timed out"
    return None


def _first_line(exc):
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _url_concerned(chain, urls):
    text = " ".join(str(e) for e in chain)
    for url in urls:
        if url.split("://", 1)[1].rstrip("/") in text:
            return url
    return urls[0]


def remote_failure(exc, urls):
    """One line (without the command prefix) saying what failed, at which URL, with the
    server's error code; None when ``exc`` is not about a store, its credentials or the
    network, or no URL was involved."""
    if not urls:
        return None
    chain = _chain(exc)
    if not any(_is_remote(e) for e in chain):
        return None
    url = _url_concerned(chain, urls)
    code, status = _server_code(chain)
    names = {type(e).__name__ for e in chain}
    codes = {str(c) for c in (code, status) if c is not None}
    spelled = ", ".join(x for x in (code, None if status is None else f"HTTP {status}") if x)
    refused = codes & (_BAD_CREDENTIALS | _DENIED) or isinstance(exc, PermissionError)
    if isinstance(exc, (FileNotFoundError, IsADirectoryError)) and url in str(exc) \
            and not refused:
        # pqkit.filesystems.object_size's own message names the URL and what it found
        return _first_line(exc) + (f" ({spelled})" if spelled else "")
    if codes & _BAD_CREDENTIALS or names & {"NoCredentialsError", "PartialCredentialsError",
                                            "DefaultCredentialsError"}:
        what = "credentials refused or missing for"
    elif codes & _DENIED or isinstance(exc, PermissionError):
        what = "access denied to"
    elif codes & set(_MISSING):
        what = next(_MISSING[c] for c in (code, str(status)) if c in _MISSING) + " at"
    elif names & {"EndpointConnectionError", "ConnectTimeoutError", "ClientConnectorError",
                  "ConnectionRefusedError", "ServerDisconnectedError", "ReadTimeoutError"}:
        endpoint = next((e.kwargs.get("endpoint_url") for e in chain
                         if isinstance(getattr(e, "kwargs", None), dict)
                         and e.kwargs.get("endpoint_url")), None)
        reason = _socket_reason(chain) or _first_line(chain[-1])
        where = f" (endpoint {endpoint.split('/', 3)[:3][-1]})" if endpoint else ""
        return f"cannot connect to the server of {url}{where}: {reason}"
    else:
        what = "request failed for"
    detail = _first_line(chain[-1] if code is None else exc)
    return f"{what} {url}: {detail}" + (f" ({spelled})" if spelled else "")
