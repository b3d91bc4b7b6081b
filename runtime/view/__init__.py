"""``maai view``: a local, read-only web viewer of a ledger (docs/view.md). Needs the
``view`` extra (``pip install 'maai[view]'``): Starlette, uvicorn and Jinja2."""
