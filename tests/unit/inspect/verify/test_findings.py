"""pqkit.inspect.verify.findings: the rule table."""
from pqkit.inspect.verify import RULES


def test_every_rule_is_documented():
    for rule_id, rule in RULES.items():
        assert rule.id == rule_id and rule.severity in ("error", "warning", "info")
        assert rule_id.startswith("PQ-") and rule.title
