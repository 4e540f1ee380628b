"""What a diagnosis is made of: the verdict vocabulary, a piece of Evidence, a Finding (a verdict, its score and
evidence) and the Diagnosis itself. Plain data with no rules in it, so every rule family and the roofline
comparison can import it without importing each other (no cycle with roofline.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

VERDICTS = ("queueing", "kv-capacity", "prefill-bound", "decode-bound", "healthy", "measurement-artifact",
            "insufficient-data")


@dataclass
class Evidence:
    """One observation that supports (or weighs on) a verdict: a sentence, its numbers and where they came from."""

    verdict: str  # the verdict it supports, or "note" for context that supports none
    text: str
    numbers: dict = field(default_factory=dict)
    lines: list = field(default_factory=list)
    file: str = ""
    rule: str = ""  # the rules.RULES entry that read it

    def to_dict(self) -> dict:
        return {"verdict": self.verdict, "text": self.text, "numbers": self.numbers, "lines": self.lines,
                "file": self.file, "rule": self.rule}


@dataclass
class Finding:
    verdict: str
    score: float  # 0..1, how strongly the evidence supports the verdict
    evidence: list
    rule: str = ""


@dataclass
class Diagnosis:
    """The verdict for a set of log files, with its evidence, confidence, timeline and consistency checks."""

    verdict: str
    confidence: float
    headline: str
    evidence: list
    alternatives: list  # [{"verdict", "confidence"}] other readings the evidence also supports
    metrics: dict
    timeline: list
    capacity: dict
    events: dict
    checks: list
    files: list
    notes: list
    advice: list = field(default_factory=list)
    roofline: dict | None = None
    warnings: list = field(default_factory=list)  # what the user gave that could not be used, one line each

    def to_dict(self) -> dict:
        return {
            "verdict": self.verdict,
            "confidence": round(self.confidence, 2),
            "headline": self.headline,
            "alternatives": self.alternatives,
            "evidence": [item.to_dict() for item in self.evidence],
            "metrics": self.metrics,
            "timeline": self.timeline,
            "capacity": self.capacity,
            "events": self.events,
            "checks": self.checks,
            "roofline": self.roofline,
            "advice": self.advice,
            "notes": self.notes,
            "warnings": self.warnings,
            "files": self.files,
        }
