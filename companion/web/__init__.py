"""The box's web faces, on aiohttp (the optional extra ``web``), imported only when one is on.

- server.py: the server in its own thread and asyncio loop, a Face of the box; the event stream.
- guard.py: what every request must pass (source, Host, Origin, size, time, CSP).
- sim_routes.py: the simulator's page and API (`trap-companion sim --web`).
- pairing.py, public.py, phones.py, phone_server.py: the phones at the table (pairing with a
  code, what a phone may see, the phone face and its own server).
- static/: the page, plain HTML, CSS and JavaScript, no build step.
"""
