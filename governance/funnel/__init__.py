"""The write funnel: classify → value → guard (rules → judge → layer policy) →
conflict → validate. Each stage returns a StageOutcome that becomes one Trace row."""
