"""The two toy collections of Fabris et al. (Section 3.4 and 4.1, word lists from Appendix A).

Toy 1 (direct stereotype): documents "The man is a <job>" and "The woman is a <job>" for the 20 jobs
with the widest gender gap (US CPS 2019); the queries are the jobs; both documents of a job are
relevant. S returns the stereotypical document, CS the counter-stereotypical one, N both (man first).

Toy 2 (indirect stereotype): documents "The <job> is <adjective>" for every job and every agency or
communion adjective; all documents of a job are relevant to it. S returns the job's documents whose
adjective matches the job's stereotype (female jobs: communion, male jobs: agency), CS the opposite,
N all of them. Within a list the adjectives keep the order of the lists below, so that S and CS lists
are mirror images and N lists are the same for every query: GSR(S) = −GSR(CS), GSR(N) = 0.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .trec import Qrels, Run, Topic, write_qrels, write_run, write_topics

FEMALE_JOBS = ("hygienist", "secretary", "hairdresser", "dietician", "paralegal",
               "receptionist", "phlebotomist", "maid", "nurse", "typist")
MALE_JOBS = ("stonemason", "roofer", "electrician", "plumber", "carpenter",
             "firefighter", "millwright", "welder", "machinist", "driver")
AGENCY = ("ambitious", "confident", "hardworking", "independent", "decisive", "proud", "aggressive",
          "critical", "stubborn", "strong", "demanding", "possessive", "arrogant", "selfish")
COMMUNION = ("honest", "affectionate", "compassionate", "patient", "unselfish", "polite", "outgoing",
             "romantic", "sensitive", "emotional")


@dataclass
class ToyCollection:
    """Documents, topics, qrels and the S/N/CS runs of one toy collection."""

    name: str
    docs: dict[str, str]
    topics: dict[str, Topic]
    qrels: Qrels
    runs: dict[str, Run]

    def write(self, folder: str | Path) -> dict[str, Path]:
        """Write corpus.jsonl, topics.txt, qrels.txt and S.run/N.run/CS.run; returns their paths."""
        import json

        from .atomic import write_text

        out = Path(folder)
        paths = {"corpus": out / "corpus.jsonl", "topics": out / "topics.txt", "qrels": out / "qrels.txt"}
        write_text(paths["corpus"], "".join(json.dumps({"id": d, "contents": t}) + "\n" for d, t in self.docs.items()))
        write_topics(paths["topics"], self.topics)
        write_qrels(paths["qrels"], self.qrels)
        for name, run in self.runs.items():
            paths[name] = out / f"{name}.run"
            write_run(paths[name], run, tag=f"toy-{name}")
        return paths


def _topics(jobs: tuple[str, ...]) -> dict[str, Topic]:
    return {str(i): Topic(str(i), job) for i, job in enumerate(jobs, start=1)}


def toy_direct() -> ToyCollection:
    """Toy 1: "The man/woman is a <job>"."""
    jobs = FEMALE_JOBS + MALE_JOBS
    topics = _topics(jobs)
    docs, qrels, lists = {}, {}, {"S": {}, "N": {}, "CS": {}}
    for qid, topic in topics.items():
        job = topic.title
        man, woman = f"{job}-man", f"{job}-woman"
        docs[man] = f"The man is a {job}."
        docs[woman] = f"The woman is a {job}."
        qrels[qid] = {man: 1, woman: 1}
        stereotypical, counter = (woman, man) if job in FEMALE_JOBS else (man, woman)
        lists["S"][qid] = [stereotypical]
        lists["CS"][qid] = [counter]
        lists["N"][qid] = [man, woman]
    return ToyCollection("toy-direct", docs, topics, qrels, {n: Run.from_lists(n, ranked) for n, ranked in lists.items()})


def toy_indirect() -> ToyCollection:
    """Toy 2: "The <job> is <adjective>" with agency and communion adjectives."""
    jobs = FEMALE_JOBS + MALE_JOBS
    topics = _topics(jobs)
    docs, qrels, lists = {}, {}, {"S": {}, "N": {}, "CS": {}}
    for qid, topic in topics.items():
        job = topic.title
        ids = {adj: f"{job}-{adj}" for adj in AGENCY + COMMUNION}
        for adj, doc_id in ids.items():
            docs[doc_id] = f"The {job} is {adj}."
        qrels[qid] = {doc_id: 1 for doc_id in ids.values()}
        female = job in FEMALE_JOBS
        lists["S"][qid] = [ids[a] for a in (COMMUNION if female else AGENCY)]
        lists["CS"][qid] = [ids[a] for a in (AGENCY if female else COMMUNION)]
        lists["N"][qid] = [ids[a] for a in AGENCY + COMMUNION]
    return ToyCollection("toy-indirect", docs, topics, qrels, {n: Run.from_lists(n, ranked) for n, ranked in lists.items()})
