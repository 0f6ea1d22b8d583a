"""The drift report: every failure and every changed output of a drift-check run, as
Markdown for a CI step summary. Read top to bottom: the verdict, the failures, the real
drift, then the numerical differences (only the last digits of floats: they do not fail,
see :mod:`coursekit.execution.compare`)."""

from __future__ import annotations

from dataclasses import dataclass

from coursekit.execution.compare import TOLERANCE


@dataclass(frozen=True)
class Finding:
    where: str  # "docs/page.md:12"
    kind: str  # "failure", "drift" (a real difference) or "numerical" (last digits only)
    text: str  # the failure's report, or the diff
    key: str = ""
    after_failure: bool = False


def markdown_report(
    findings: list[Finding], recorded_torch: str, running_torch: str, blocks: int
) -> str:
    failures = [f for f in findings if f.kind == "failure"]
    drift = [f for f in findings if f.kind == "drift"]
    numerical = [f for f in findings if f.kind == "numerical"]
    lines = [
        f"## Drift check: PyTorch {running_torch} against the record (PyTorch {recorded_torch})",
        "",
    ]
    if not failures and not drift:
        lines.append(f"No output changed and no block failed ({blocks} blocks ran).")
    else:
        lines.append(
            f"{len(failures)} block(s) failed and {len(drift)} printed something other than "
            f"the record ({blocks} blocks ran)."
        )
    if numerical:
        lines.append(
            f"{len(numerical)} block(s) differ from the record only in the last digits of "
            f"floats ({TOLERANCE}): numerical, not a failure."
        )
    if failures:
        lines += ["", "### Failures", ""]
        for finding in failures:
            lines += [f"**{finding.where}**", "", "```text", finding.text, "```", ""]
    if drift:
        lines += ["", "### Changed outputs", ""]
        for finding in drift:
            note = " (ran after a failure on its page)" if finding.after_failure else ""
            lines += [
                f"**{finding.where}** `{finding.key}`{note}",
                "",
                "```diff",
                finding.text,
                "```",
                "",
            ]
    if numerical:
        lines += ["", "### Numerical differences (not failures)", ""]
        for finding in numerical:
            title = f"**{finding.where}** `{finding.key}`"
            lines += [title, "", "```diff", finding.text, "```", ""]
    return "\n".join(lines) + "\n"
