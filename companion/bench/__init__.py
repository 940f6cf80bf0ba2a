"""The figures of docs/performance.md: `trap-companion bench`, `make bench` and `make pibench`.

- ``run``: what each mode measures (the whole run, ``--bus``), the targets and which are met;
- ``box``: the simulated box every bench runs, and the watches on it;
- ``figures``: the box's own (a button or a card to its frame, the readers, idle, the timer);
- ``start``: start to READY=1 and memory of a real `trap-companion run`, the journal's writes;
- ``phones``: the web page's and the phones' server's figures;
- ``floods``: the box's own press while the phones' port is flooded;
- ``long_games``: a game of any length (``--game-length``);
- ``pi_class``: the figures read at a Pi's pace under emulation (``--pi-class``, `make pibench`);
- ``bus``: the OLED's bytes on the I2C bus (``--bus``);
- ``markdown``: the table that opens docs/performance.md, from the bench's JSON (``--markdown``).
"""
