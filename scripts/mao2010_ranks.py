"""Average ranks of the methods of Mao & Tsang's Table 2, ours and the paper's.

For each data set and labeled-set size the methods are ranked by mean accuracy
(1 = best, ties share the mean rank); the ranks are then averaged over all
cells, as the paper does.  Reads results/mao2010/table2.csv, writes
results/mao2010/ranks.{csv,md}.

    python scripts/mao2010_ranks.py
"""

from pathlib import Path

import pandas as pd

from sskernels.experiment.records import atomic_write_text

DIR = Path(__file__).resolve().parents[1] / "results" / "mao2010"


def average_ranks(df, value):
    ranks = df.groupby(["dataset", "setting"])[value].rank(ascending=False, method="average")
    return df.assign(rank=ranks).groupby("method", sort=False)["rank"].mean()


def main():
    df = pd.read_csv(DIR / "table2.csv")
    df = df[df["metric"] == "accuracy"]
    ours = average_ranks(df, "mean")
    paper = average_ranks(df.dropna(subset=["paper_mean"]), "paper_mean")
    out = pd.DataFrame({"ours": ours.round(2), "paper": paper.round(2)})
    out.index.name = "method"
    atomic_write_text(DIR / "ranks.csv", out.to_csv())
    lines = ["# Mao & Tsang 2010, Table 2: average rank over the "
             f"{df.groupby(['dataset', 'setting']).ngroups} data set × label-size cells "
             "(1 = best)", "", "| method | ours | paper |", "|---|---|---|"]
    lines += [f"| {m} | {r['ours']:.2f} | {r['paper']:.2f} |" for m, r in out.iterrows()]
    atomic_write_text(DIR / "ranks.md", "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
