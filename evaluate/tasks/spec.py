"""What a task needs of a run, resolved once from its options: narrow, frozen, and free of the
run's options (a test checks that no task imports them)."""

from __future__ import annotations

from dataclasses import dataclass

from ud_agree.schemas.results import Rule


@dataclass(frozen=True)
class Scoring:
    """How a pair is decided and which texts are scored (§5.1): corpus pairs and suites alike."""

    rule: Rule = "sum"  # the headline rule, `right`
    rules: tuple[Rule, ...] = ()  # extra rules whose ingredients cost work (`minicons`)
    leading_space: bool = False  # score " " + each sentence (lm-eval's `blimp_*` delimiter)

    @property
    def native(self) -> bool:
        """Whether the `minicons` rule's own forward is asked for (§5.1)."""
        return "minicons" in (self.rule, *self.rules)


@dataclass(frozen=True)
class ItemChoice:
    """Which class-average items a run builds and how a candidate counts as correct (§1.5)."""

    roles: tuple[str, ...] = ("controller",)  # the roles masked
    match: str = "agreement"
    case: str = "fold"
    min_candidates: int = 10
    # What the model may read around the masked word: the sentence (`context`), or none of its
    # words (`no-context`: every word hidden, §1.5's control).
    control: str = "context"


@dataclass(frozen=True)
class Pace:
    """How a task writes what it scores: items per results chunk, and a progress bar or not."""

    chunk_size: int = 4096
    progress: bool = True
