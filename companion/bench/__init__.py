"""The figures of docs/performance.md: `trap-companion bench`, `make bench` and `make pibench`.

The simulated box every bench runs (``box``), the box's own figures (``figures``), the phones'
floods (``floods``), the OLED's bytes on the bus (``bus``).
"""
