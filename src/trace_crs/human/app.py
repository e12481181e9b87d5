"""The annotation web tool (seed 000 App. K.1, Figures 4–5): FastAPI over :class:`LabelStore`.

Pages are rendered on the server by Jinja2 with autoescaping (a ``<script>`` typed into a
comment comes back as text), from the store, so a reload shows exactly what was saved.  The
one script (``web/app.js``, served from the package; a Content-Security-Policy forbids inline
scripts) sends each change as ``PUT /api/<token>/item/<item_id>/<field>`` with ``{"value": …}``.

* ``GET /a/<token>`` — the annotator's item list with progress; ``GET /a/<token>/item/<id>`` —
  one item (Task 1: context, response, per-quote labels, error checklist, Likert, comment;
  Task 2: context, request, candidates with reviews, 1–3 picks, a cited sentence).
* ``GET /api/<token>/labels`` — the annotator's own saved fields.
An unknown token is 403; an item id that is not ``[A-Za-z0-9_-]{1,64}`` is 400 and an unknown
one 404; a body over :data:`MAX_BODY` bytes is 413; an invalid value is 422 (nothing saved); an
internal error is a 500 that keeps every security header (logged, not shown).
"""

from __future__ import annotations

import json
import logging
from importlib.resources import files
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from jinja2 import Environment, PackageLoader, select_autoescape

from trace_crs.human.labels import ERROR_CATEGORIES, ERROR_TEXT
from trace_crs.human.store import ITEM_ID, LabelStore

logger = logging.getLogger(__name__)
MAX_BODY = 64 * 1024
CSP = "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'"
CITATION_TEXT = {"supported": "Supported", "partial": "Partial", "not_supported": "Not supported"}


def create_app(store: LabelStore) -> FastAPI:
    """The app serving ``store``'s items and labels."""
    app = FastAPI(title="Trace annotation", docs_url=None, redoc_url=None, openapi_url=None)
    env = Environment(loader=PackageLoader("trace_crs.human", "web"), autoescape=select_autoescape(["html"]))
    order = list(store.items)

    @app.middleware("http")
    async def headers(request: Request, call_next: Any) -> Response:
        try:
            response = await call_next(request)
        except Exception:  # a bug: still a response with the security headers, never a bare 500
            logger.exception("annotation app: internal error on a %s request", request.method)  # the path holds a token
            response = JSONResponse({"detail": "internal error"}, status_code=500)
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"  # the token is in the URL
        response.headers["Cache-Control"] = "no-store"
        return response

    def who(token: str) -> str:
        name = store.annotator(token) if len(token) <= 64 else None
        if name is None:
            raise HTTPException(403, "unknown token")
        return name

    def item_of(item_id: str) -> dict[str, Any]:
        if not ITEM_ID.match(item_id):
            raise HTTPException(400, "malformed item id")
        if item_id not in store.items:
            raise HTTPException(404, "no such item")
        return store.items[item_id]

    @app.get("/static/app.js")
    def script() -> Response:
        text = files("trace_crs.human").joinpath("web/app.js").read_text(encoding="utf-8")
        return Response(text, media_type="text/javascript")

    @app.get("/static/app.css")
    def style() -> Response:
        text = files("trace_crs.human").joinpath("web/app.css").read_text(encoding="utf-8")
        return Response(text, media_type="text/css")

    @app.get("/a/{token}", response_class=HTMLResponse)
    def index(token: str) -> str:
        name = who(token)
        saved = store.fields(name)
        rows = [{"id": i, "task": store.items[i]["task"], "n": len(saved.get(i, {}))} for i in order]
        return env.get_template("index.html").render(token=token, name=name, rows=rows)

    @app.get("/a/{token}/item/{item_id}", response_class=HTMLResponse)
    def page(token: str, item_id: str) -> str:
        name, item = who(token), item_of(item_id)
        pos = order.index(item_id)
        return env.get_template("item.html").render(
            token=token,
            name=name,
            item=item,
            saved=store.fields(name, item_id).get(item_id, {}),
            prev=order[pos - 1] if pos else None,
            next=order[pos + 1] if pos + 1 < len(order) else None,
            position=pos + 1,
            total=len(order),
            errors=ERROR_CATEGORIES,
            error_text=ERROR_TEXT,
            citation_text=CITATION_TEXT,
        )

    @app.get("/api/{token}/labels")
    def labels(token: str) -> JSONResponse:
        return JSONResponse(store.fields(who(token)))

    @app.put("/api/{token}/item/{item_id}/{field}")
    async def save(token: str, item_id: str, field: str, request: Request) -> JSONResponse:
        declared = request.headers.get("content-length", "0")
        if not declared.isdigit() or int(declared) > MAX_BODY:
            raise HTTPException(413, "payload too large")
        name, _ = who(token), item_of(item_id)
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                raise HTTPException(413, "payload too large")
        try:
            payload = json.loads(body)
            value = payload["value"]
        except (ValueError, KeyError, TypeError, RecursionError):  # RecursionError: JSON nested ~10,000 deep
            raise HTTPException(400, 'expected a JSON object {"value": ...}') from None
        try:
            stored = store.save(name, item_id, field, value)
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None
        return JSONResponse({"saved": stored})

    return app
