"""Check that tests/test_views_programs.py catches faults in the memory model: each run
breaks one part of lazytensor/_engine/views.py and runs 500 random programs, which must fail.

    for f in no_protect views_copy fresh_shares no_read_only export_copy no_settle; do
        python tools/inject_view_faults.py $f; done
"""
import sys, unittest
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "tests"))
from hypothesis import settings, HealthCheck, Phase
import numpy as np
import lazytensor as lt
from lazytensor._engine import views
import test_views_programs as m
fault = sys.argv[1]
if fault == "no_protect":
    views.protect_pending_readers = lambda mem: None
elif fault == "views_copy":
    orig = views.view
    views.view = lambda t, make, read_only=False: orig(t, lambda m_: np.array(make(m_)), read_only)
elif fault == "fresh_shares":
    views.fresh = lambda t: type(t)._from_node(t._node)
elif fault == "no_read_only":
    views.check_writable = lambda t, what: None
elif fault == "no_settle":
    views.settle = lambda t: None
elif fault == "export_copy":
    views.handed_out = lambda t: np.array(t._value())
m.ViewPrograms.TestCase.settings = settings(max_examples=500, stateful_step_count=12, deadline=None,
    report_multiple_bugs=False, suppress_health_check=list(HealthCheck), phases=[Phase.generate])
r = unittest.TextTestRunner(verbosity=0, stream=open("/dev/null","w")).run(unittest.defaultTestLoader.loadTestsFromTestCase(m.ViewPrograms.TestCase))
print(fault, "caught" if (r.failures or r.errors) else "NOT CAUGHT")
