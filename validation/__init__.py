"""Release gates: Great Expectations suites as code over cross-table frames computed in DuckDB.

`run_gates(con, run_id)` validates every registered suite and returns a GateReport; importing this
package does not import Great Expectations (the first gate run does).
"""

from validation.gates import GateReport, run_gates

__all__ = ["GateReport", "run_gates"]
