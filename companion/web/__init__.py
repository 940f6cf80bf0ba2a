"""The box's web faces, on aiohttp (the optional extra ``web``), imported only when one is on.

- server.py: the server in its own thread and asyncio loop, a Face of the box; the event stream.
  One part used twice: for the simulator's page and for the phones, each adding its routes.
- guard.py: what every request must pass (source, Host, Origin, size, time, CSP).
- sim_routes.py: the simulator's page and API (`trap-companion sim --web`).
- phone_routes.py: the phones' page and API (the cookie of a paired phone, then the handlers).
- pairing.py, public.py, phones.py: the phones at the table (pairing with a code, what a phone
  may see, the phone face: its port bound on the box's loop and retried, its questions to the
  loop).
- static/: the page, plain HTML, CSS and JavaScript, no build step.
"""
