"""The YAML experiment spec: schema, defaults and one-line errors.

A spec names one data set, its preprocessing, a graph, a split protocol and a
list of methods::

    name: heart_tsk                 # optional, default: the file's stem
    table: liu2009-t3               # optional: the paper table this run belongs to
    dataset: heart                  # a registered name, or a mapping (see below)
    preprocess: minmax              # none | minmax | standardize | l2 | standardize-l2
    graph: {k: 6, weights: hein-maier}      # sigma, metric optional
    splits: {protocol: random, n_splits: 20, n_labeled: 20, seed: 0}
                                    # n_labeled may be a list (one setting each);
                                    # holdout: 0.2 sets a seeded 20 % aside as unseen points
    methods:
      - name: tsk                   # a registered method (``sskernels methods list``)
        label: TSK                  # optional display name (default: name)
        paper_row: TSK              # optional row of the paper table (old name: paper;
                                    # default: the label if the table has exactly that row)
        params: {n_components: 10, eta: 2}
        select: oracle              # optional, NOT the default: see "Selection" below
      - estimator: mypkg.module:MyClassifier   # a user's estimator (instead of name:)
        grid: {n_neighbors: [1, 3]}            # optional: selected on the labeled points
    metrics: [error, alignment]     # optional: metrics recorded beside accuracy (see below)
    paper: {table: liu2009_table3_uci_transductive_accuracy, dataset: heart}   # optional
                                    # (time_table: a paper table of seconds, for metric "seconds")
    output: ../results/runs/heart_tsk  # optional: where records and the summary go

A method's ``name`` may also be an entry point of the group ``sskernels.methods``; a
user's estimator, its ``grid:`` and its record key are described in
:mod:`sskernels.user_methods`, the paper rows (``paper_row:``) in
:mod:`sskernels.spec_paper_rows`.

Split protocols (:mod:`sskernels.experiment.splits`): ``random`` (uniform, redrawn until
every class occurs), ``official`` (the data set's own splits), ``class-first`` (one point per
class first, then uniform; ``cover: groups`` takes one point per subclass first, e.g. every
digit of ``odd-even``; default ``cover: classes``) and ``per-class`` (exact counts per class,
in sorted label order, one setting per inner list; no ``n_labeled``, it is each list's sum)::

    splits: {protocol: class-first, n_labeled: [10, 20, 40], cover: groups, n_splits: 30}
    splits: {protocol: per-class, per_class: [[10, 10], [10, 20], [10, 30], [10, 40]]}

A user's own file is ``dataset: {file: data.csv, label: class}`` (format
inferred from the suffix, or ``format: csv | svmlight``).  One rule for every
relative path of a spec (the data file and ``output``): it is taken relative to
the spec file's folder, so a spec, its data and its results move together.  The
default ``output`` is ``results/runs/NAME`` beside the spec; ``name`` may not hold
path separators.

Metrics.  Accuracy (%) on the unlabeled points is always recorded (and "inductive
accuracy" on held-out points).  ``metrics:`` asks for more, opt-in so that the records and
tables of the specs without it stay as they were: ``error`` (100 - accuracy, %; and
"inductive error") and ``alignment`` (the centered alignment, Cortes et al. 2010, of the
learned kernel's unlabeled block with the ideal kernel of the true unlabeled labels; only
for methods that learn a kernel, i.e. whose fitted estimator exposes ``kernel_``; Wang et
al. 2015, Tables 1-3).

Selection.  A method's parameters set to ``auto`` (or given as a list, or selected by
default) are selected on the labeled points only (``SelectOnLabeled``), the default and
the project's protocol.  ``select: oracle`` instead runs every candidate of the same grid
(nested grids, e.g. a kernel learner's, included) and keeps, per split, the one with the
best accuracy on the unlabeled points — it looks at the test labels, so it is never the
default and its label must say "oracle" (:mod:`sskernels.experiment.oracle`).  It exists
to reproduce papers that report the best grid point (Wang et al. 2015: "choose b ... that
gives the best performance").

Regression.  The task is the registered data set's (``Entry.task``; a data file is a
classification set).  On a regression data set (e.g. ``wifi``): the methods must be
regressors (``sskernels methods list``: svr, harmonic-regression, label-aware-svr) and on a
classification set classifiers; the metrics ``rmse`` and ``mse`` of the targets on the test
points are always recorded (``metrics:`` may list them and nothing else: ``error``,
``alignment`` and ``accuracy`` are refused); the protocol is ``random`` without ``holdout``:
split i draws ``n_labeled`` points, seeded by (seed, i), from the data set's labeled pool (the
rows of its official split; WiFi: its 505 'src' points) and the pool's other points are the
test points, while the rows outside the pool (WiFi's 2137 'tar' points) are unlabeled points
the learners may use and nobody is evaluated on; ``target_scale: minmax`` maps each target to
[0, 1] over all rows (Wang et al. 2015), ``none`` (default) keeps them; ``select: oracle`` is
refused (it ranks by accuracy)::

    dataset: wifi
    preprocess: rss-floor
    target_scale: minmax
    splits: {protocol: random, n_labeled: 100, n_splits: 10}
    metrics: [rmse, mse]
    methods: [svr, harmonic-regression, label-aware-svr]

Readings.  Where a paper's sentence can be read more than one way, the spec follows one
reading (its primary protocol) and may declare the others, each an overlay on the primary
spec quoting the sentence it interprets (``readings:``, :func:`_readings`); ``sskernels run
SPEC --reading NAME`` (or ``all``) runs them, their records beside the primary ones and their
rows marked with the reading's name, so that a match under a reading is never counted as a
match of the primary protocol.  A whole spec may itself be one reading of another
(``reading: {name: raw-features, quote: "..."}``).  A method marked ``protocol: paper`` is the
row that follows the paper's stated protocol for its paper cell where the spec has several.

Ranges.  Every number is checked before any work: nan and inf are refused everywhere
(a method's parameters, however nested, included); ``graph.k`` (and a method's own
``n_neighbors``) is 1 to :data:`MAX_NEIGHBORS`, ``graph.sigma`` (and a method's ``sigma``,
``kernel_width`` and ``kernel_width_scale``: RBF widths too) :data:`SIGMA_MIN` to
:data:`SIGMA_MAX`, a method's ``laplacian_degree`` 1 to :data:`MAX_LAPLACIAN_DEGREE`,
``splits.n_splits`` 1 to :data:`MAX_SPLITS`,
``splits.n_labeled`` and the ``per_class`` counts 1 to :data:`MAX_LABELED`, ``splits.seed``
0 to 2^32 - 1 and ``splits.holdout`` in [0, 1) (0 with protocol ``official``, and with a
precomputed input, ``graph: precomputed`` or ``kernel: precomputed``: held-out rows of an
(n, n) matrix leave a matrix that is not square).  A method's parameters are checked against
its estimator's constraints, every value of a grid it selects over included, and against the
shape the parameter takes where those constraints are loose (a parameter whose default is a
number takes no mapping, and a list only as a grid or where it takes a sequence, of numbers:
:func:`sskernels.spec_params._value_problems`).  What only the
data can tell (the held-out fraction against the classes, ``n_labeled`` and ``k`` against the
points the learners see) is checked once the data set loads, before any graph is built
(:func:`sskernels.experiment.preparation.prepare`).

Every problem is a :class:`~sskernels.errors.SpecError` naming the file, the
field and what was expected, in one line (:func:`one_line`: every line break and control
character a value or a name holds is escaped).  The file's YAML is read by
:mod:`sskernels.spec_yaml`: bounded before anything is built from it (:data:`MAX_YAML_NODES`
nodes with aliases expanded, :data:`MAX_YAML_DEPTH` levels), with no types a spec does not
take (sets, dates, binary), and whatever fails while reading it (a tag PyYAML cannot build, a
date that does not exist) is one such line with its line and column, not a traceback.

Reading the YAML is apart, in :mod:`sskernels.spec_yaml` (it knows nothing of the schema);
the checks of one method entry are in :mod:`sskernels.spec_params`, its paper row in
:mod:`sskernels.spec_paper_rows` and the packaged specs in :mod:`sskernels.spec_packaged`.

The package's face: the names below, defined in :mod:`~sskernels.spec.fields` (the fields,
protocols and metrics a spec may name), :mod:`~sskernels.spec.model` (:class:`Spec` and its
parts' dataclasses), :mod:`~sskernels.spec.keys` (:func:`method_key`, :func:`graph_matters`),
:mod:`~sskernels.spec.validate` (:func:`one_line` and the validator of types and ranges),
:mod:`~sskernels.spec.load` (:func:`load_spec`: the file), :mod:`~sskernels.spec.parse`
(:func:`parse_spec`: the raw mapping), :mod:`~sskernels.spec.readings` (``readings:``,
:func:`apply_reading`) and :mod:`~sskernels.spec.sections` (``metrics:`` and the options of
``splits:``).
"""

from __future__ import annotations

# the names of the single module this package was, kept importable from it (the standard
# library's and PyYAML's included)
import os  # noqa: F401
import re  # noqa: F401
from dataclasses import asdict, dataclass, field  # noqa: F401
from pathlib import Path  # noqa: F401

import yaml  # noqa: F401

from sskernels.data.transforms import PREPROCESSINGS as PREPROCESS  # noqa: F401
from sskernels.errors import SpecError  # noqa: F401
from sskernels.hashing import json_digest  # noqa: F401
from sskernels.spec.fields import (  # noqa: F401
    COVERS,
    EXTRA_METRICS,
    NAME_RE,
    PROTOCOLS,
    READING_FIELDS,
    READING_SET,
    REGRESSION_METRICS,
    SPLIT_FIELDS,
    TARGET_SCALES,
    TOP_FIELDS,
    maximum_reason,
)
from sskernels.spec.keys import graph_matters, method_key  # noqa: F401
from sskernels.spec.load import _yaml_problem, load_spec  # noqa: F401
from sskernels.spec.model import (  # noqa: F401
    DatasetSpec,
    GraphSpec,
    MethodSpec,
    PaperSpec,
    Spec,
    SplitSpec,
    _hash,
)
from sskernels.spec.parse import parse_spec  # noqa: F401
from sskernels.spec.readings import _method_label, _readings, apply_reading  # noqa: F401
from sskernels.spec.sections import (  # noqa: F401
    _check_splits_against_data,
    _metrics,
    _per_class,
    _split_options,
)
from sskernels.spec.validate import _V, _error, _yaml_number_hint, one_line  # noqa: F401

# the YAML reader (its bounds re-exported: they are the spec's)
from sskernels.spec_yaml import MAX_YAML_DEPTH, MAX_YAML_NODES  # noqa: F401
from sskernels.spec_yaml import SpecYAMLError, read_yaml  # noqa: F401
from sskernels.spec_limits import (  # noqa: F401 - the spec's bounds, re-exported
    MAX_LABELED,
    MAX_LAPLACIAN_DEGREE,
    MAX_NEIGHBORS,
    MAX_SPLITS,
    METHOD_FIELDS,
    PARAM_MAGNITUDE,
    PROTOCOLS_OF_ROWS,
    SELECTIONS,
    SIGMA_MAX,
    SIGMA_MIN,
    SIGMA_REASON,
    WIDTH_REASON,
    _finite,
)
from sskernels.spec_paper_rows import paper_row, paper_rows  # noqa: F401
from sskernels.spec_params import method_entry  # noqa: F401
