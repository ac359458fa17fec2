"""A matplotlib figure as PNG bytes, the same way everywhere: fixed metadata (no software version
in the file), so that the same figure gives the same bytes; the figure is closed.

    from common.figures import png_bytes
    atomic.write_bytes("out.png", png_bytes(fig, dpi=110))
"""

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def png_bytes(fig, dpi=100, tight=False):
    """PNG of `fig` at `dpi`; `tight` crops to what is drawn (bbox_inches="tight")."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None}, **({"bbox_inches": "tight"} if tight else {}))
    plt.close(fig)
    return buf.getvalue()
