"""chaodipi: the reference implementation of 炒地皮 (Chao Di Pi).

The rules engine is pure Python: cards → rules → trump → units → play →
trick → bidding → settlement, and the referee that answers single questions.
"""

__version__ = "0.1.0"
