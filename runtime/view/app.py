"""The ``maai view`` web app (docs/view.md): a Starlette app over a ledger opened read-only.

Pages are Jinja2 templates with autoescaping on (every model text is escaped where it is
put in a page); the only script is ``static/live.js``, shipped in the package. Errors never
show a traceback: an unknown id is a 404 page, a ledger that cannot be read one page
naming why (and one log line), anything else a 500 page and the traceback in the log.
"""

from __future__ import annotations

import contextlib
import hmac
import logging
import secrets
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import URL
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from maai.domain.experiments import UnknownExperimentError
from maai.ledger import LedgerError, RunNotFoundError
from maai.projections import templating
from maai.projections.history import UnreadableEventError
from maai.runtime.view import pages
from maai.runtime.view.pages import NotFound
from maai.runtime.view.reading import ViewStore
from maai.runtime.view.studies import StudyPlan

HERE = Path(__file__).resolve().parent
TOKEN_COOKIE = "maai_view_token"
log = logging.getLogger("maai.view")


def templates() -> Jinja2Templates:
    """The pages' templates: the ones ``maai report`` renders too (``projections/templates``,
    autoescaped for every file, an undefined name an error, no Python object written as
    Python writes it; markup that ``projections/markup.py`` built goes in as it is, through
    its ``__html__``; ``projections/templating.py``)."""
    env = templating.environment(printable=(URL,))
    env.filters["query"] = lambda params: urlencode({k: v for k, v in params.items() if v})
    return Jinja2Templates(env=env)


class TokenGuard(BaseHTTPMiddleware):
    """Every request must carry the token (``?token=`` once, then a cookie)."""

    def __init__(self, app: Any, token: str) -> None:
        super().__init__(app)
        self.token = token

    async def dispatch(
        self, request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        given = request.query_params.get("token") or request.cookies.get(TOKEN_COOKIE) or ""
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            return HTMLResponse(
                "<!DOCTYPE html><title>maai view</title><p>This viewer needs the token "
                "printed when <code>maai view</code> started: open the URL it printed.</p>",
                status_code=403,
            )
        response = await call_next(request)
        if request.query_params.get("token"):
            response.set_cookie(TOKEN_COOKIE, self.token, httponly=True, samesite="strict")
        return response


def create_app(
    url: str | None, token: str | None = None, plans: Mapping[str, StudyPlan] | None = None
) -> Starlette:
    """The app over the ledger at ``url`` (as ``--db``); with ``token``, every request must
    carry it; ``plans``: the plans of study files given (``--study``), by study name."""
    store = ViewStore(url, plans)
    tpl = templates()
    shown_ledger_error: set[str] = set()

    def render(request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
        context = {"ledger": store_name(), **context}
        response = tpl.TemplateResponse(request, name, context, status_code=status)
        response.headers["Content-Security-Policy"] = (
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'"
        )
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    def store_name() -> str:
        return url or "the default ledger"

    def guarded(
        handler: Callable[[Request, ViewStore], dict[str, Any] | Response],
        template: str,
    ) -> Callable[[Request], Awaitable[Response]]:
        def page(request: Request) -> Response:
            with store.serving():
                result = handler(request, store)
                if isinstance(result, Response):
                    return result
                return render(request, result.pop("template", template), result)

        async def endpoint(request: Request) -> Response:
            try:
                # In a worker thread: a long run's page must not hold up the live polls.
                return await run_in_threadpool(page, request)
            except (RunNotFoundError, NotFound, UnknownExperimentError) as exc:
                return render(
                    request, "error.html.j2", {"title": "Not found", "why": str(exc)}, 404
                )
            except (LedgerError, UnreadableEventError) as exc:
                why = str(exc)
                if why not in shown_ledger_error:  # one log line per distinct problem
                    shown_ledger_error.add(why)
                    log.error("maai view: cannot read the ledger %s: %s", store_name(), why)
                store.close()  # reopened on the next request: the ledger may come back
                title = "The ledger cannot be read"
                return render(request, "error.html.j2", {"title": title, "why": why}, 503)
            except Exception:
                log.exception("maai view: %s failed", request.url.path)
                why = "an unexpected error; the viewer's log has the details"
                return render(request, "error.html.j2", {"title": "Error", "why": why}, 500)

        return endpoint

    def json_endpoint(
        handler: Callable[[Request, ViewStore], dict[str, Any]],
    ) -> Callable[[Request], Awaitable[Response]]:
        def answer(request: Request) -> dict[str, Any]:
            with store.serving():
                return handler(request, store)

        async def endpoint(request: Request) -> Response:
            try:
                return JSONResponse(await run_in_threadpool(answer, request))
            except (RunNotFoundError, NotFound) as exc:
                return JSONResponse({"error": str(exc)}, status_code=404)
            except (LedgerError, UnreadableEventError) as exc:
                store.close()
                return JSONResponse({"error": str(exc)}, status_code=503)
            except Exception:
                log.exception("maai view: %s failed", request.url.path)
                return JSONResponse({"error": "unexpected error"}, status_code=500)

        return endpoint

    def fragment(request: Request, name: str, context: dict[str, Any]) -> str:
        return tpl.get_template(name).render({"request": request, **context})

    async def stylesheet(request: Request) -> Response:
        return Response(templating.stylesheet(), media_type="text/css")

    routes = [
        Route("/", guarded(pages.runs_page, "runs.html.j2")),
        Route("/runs/{run_id}", guarded(pages.run_page, "run.html.j2")),
        Route(
            "/runs/{run_id}/live",
            json_endpoint(
                lambda r, s: pages.run_live(r, s, lambda c: fragment(r, "_events.html.j2", c))
            ),
        ),
        Route("/runs/{run_id}/part/{part}", guarded(pages.run_part, "")),
        Route("/runs/{run_id}/prompt/{seq:int}", guarded(pages.prompt_page, "_prompt.html.j2")),
        Route("/studies/{name}", guarded(pages.study_page, "study.html.j2")),
        Route("/studies/{name}/part/report", guarded(pages.study_report_part, "")),
        Route("/studies/{name}/live", json_endpoint(pages.study_live)),
        Route("/compare", guarded(pages.compare_page, "compare.html.j2")),
        # The one stylesheet, the one the static reports inline (projections/templates).
        Route("/static/maai.css", stylesheet),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    middleware = [Middleware(TokenGuard, token=token)] if token else []

    async def not_found(request: Request, exc: Exception) -> Response:
        return render(
            request, "error.html.j2", {"title": "Not found", "why": request.url.path}, 404
        )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # Before the viewer listens (uvicorn binds after this): the plug-ins imported and
        # the pages' templates compiled, so that the first request pays for neither.
        store.prepare()
        for name in ("run.html.j2", "runs.html.j2", "study.html.j2", "_events.html.j2"):
            tpl.get_template(name)
        warm = threading.Thread(target=store.warm, name="maai-view-warm", daemon=True)
        warm.start()
        yield
        # The warm-up ends before the store closes under it (a connection closed while
        # another thread reads through it can crash SQLite's driver).
        store.stopping.set()
        warm.join(timeout=10)
        store.close()

    app = Starlette(
        debug=False,
        routes=routes,
        middleware=middleware,
        exception_handlers={404: not_found},
        lifespan=lifespan,
    )
    app.state.store = store
    return app


def new_token() -> str:
    return secrets.token_urlsafe(24)
