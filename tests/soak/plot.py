"""Draws a soak run's samples.csv as samples.png: RSS per process group, open fds, threads,
child processes (with the transcript items the window holds) and the history file's size over
time (one panel each)."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(csv_path: str, png_path: str) -> None:
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{csv_path}: no samples")
    t = [float(r["t_s"]) / 60 for r in rows]
    groups = [c[: -len("_rss_mb")] for c in rows[0] if c.endswith("_rss_mb") and c != "total_rss_mb"]
    # Only groups that ever had a process.
    groups = [g for g in groups if any(float(r[f"{g}_procs"]) > 0 for r in rows)]

    fig, axes = plt.subplots(5, 1, figsize=(11, 15), sharex=True)
    for g in groups:
        axes[0].plot(t, [float(r[f"{g}_rss_mb"]) for r in rows], label=g)
    axes[0].set_ylabel("RSS (MB)")
    axes[0].set_title("Porthole soak: resident memory per process group")
    axes[0].legend(loc="upper left", fontsize="small", ncol=3)
    for g in groups:
        axes[1].plot(t, [float(r[f"{g}_fds"]) for r in rows], label=g)
    axes[1].plot(t, [float(r["total_fds"]) for r in rows], label="total", color="black", linewidth=2)
    axes[1].set_ylabel("open fds")
    axes[1].legend(loc="upper left", fontsize="small", ncol=3)
    for g in groups:
        axes[2].plot(t, [float(r[f"{g}_threads"]) for r in rows], label=g)
    axes[2].plot(t, [float(r["total_threads"]) for r in rows], label="total", color="black", linewidth=2)
    axes[2].set_ylabel("threads")
    axes[2].legend(loc="upper left", fontsize="small", ncol=3)
    axes[3].plot(t, [float(r["child_procs"]) for r in rows], color="black")
    axes[3].set_ylabel("child processes")
    if "window_items" in rows[0]:
        # What the window holds: if the web process grows with it, that is use, not a leak.
        items = axes[3].twinx()
        items.plot(t, [float(r["window_items"] or "nan") for r in rows], color="tab:green")
        items.set_ylabel("transcript items in the window", color="tab:green")
    axes[4].plot(t, [float(r["sqlite_bytes"]) / 1024 for r in rows], label="history + WAL (KiB)")
    ax2 = axes[4].twinx()
    ax2.plot(t, [float(r["dialogs_seen"]) for r in rows], color="tab:orange", label="dialogs seen")
    axes[4].set_ylabel("history file (KiB)")
    ax2.set_ylabel("dialogs seen")
    axes[4].set_xlabel("minutes")
    for ax in axes:
        ax.axvline(1, color="grey", linestyle=":", linewidth=1)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png_path, dpi=90)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
