"""verify: joins the symbolic layer (:mod:`bounds`) and the numeric layer
(:mod:`simulations`) into checks, audits and the report (``python -m verify``).
"""
