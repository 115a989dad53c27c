"""MIG planner: the validator agrees with the profile tables, rejects infeasible layouts with the
right reason, and the packer only returns plans the validator accepts (facts.md §7)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuxray.engines.mig import (
    MigSpecError,
    feasible_layouts,
    layout_for,
    pack,
    parse_layout,
    parse_mig_parted,
    validate,
)
from gpuxray.knowledge.mig import (
    MODELS,
    GpuModel,
    Profile,
    lookup,
    model_for_pci,
    model_for_product,
)

ALL = sorted(MODELS)


def test_every_listed_model_is_in_the_tables() -> None:
    assert set(MODELS) == {"A100-40GB", "A100-80GB", "A30-24GB", "H100-80GB", "H100-94GB",
                           "H200-141GB", "B200"}
    geometry = {name: (m.mem_slices, m.compute_slices, m.max_instances)
                for name, m in MODELS.items()}
    assert geometry["A30-24GB"] == (4, 4, 4)
    for name in ALL:
        if name != "A30-24GB":
            assert geometry[name] == (8, 7, 7), name
    # only A100 placements come from NVML; the others are marked derived
    assert {n for n, m in MODELS.items() if not m.derived} == {"A100-40GB", "A100-80GB"}


@pytest.mark.parametrize("model", ALL)
def test_each_profile_alone_reaches_exactly_its_max(model: str) -> None:
    m = MODELS[model]
    for p in m.profiles:
        ok = validate(m, {p.name: p.max_instances})
        assert ok.ok, (p.name, ok.problems)
        assert len(ok.placements) == p.max_instances
        over = validate(m, {p.name: p.max_instances + 1})
        assert not over.ok
        assert "too-many-instances" in {x.reason for x in over.problems}


@pytest.mark.parametrize("model", ALL)
def test_placements_never_overlap_and_stay_on_allowed_starts(model: str) -> None:
    m = MODELS[model]
    names = tuple(p.name for p in m.profiles)
    for combo in feasible_layouts(m, names):
        lay = validate(m, dict(zip(names, combo, strict=True)))
        used: set[int] = set()
        for pl in lay.placements:
            prof = m.profile(pl.profile)
            assert prof is not None and pl.start in prof.starts
            slots = set(range(pl.start, pl.start + pl.size))
            assert not used & slots and max(slots) < m.mem_slices
            used |= slots
        assert lay.used_compute <= m.compute_slices


def test_a100_40gb_seven_1g_leave_one_memory_slice_5gb() -> None:
    lay = validate(MODELS["A100-40GB"], parse_layout("1g.5gb=7"))
    assert lay.ok
    assert (lay.unused_mem, lay.unused_compute, lay.unused_gb) == (1, 0, 5.0)
    assert [p.start for p in lay.placements] == [0, 1, 2, 3, 4, 5, 6]


def test_a100_full_layouts() -> None:
    a100 = MODELS["A100-40GB"]
    full = validate(a100, parse_layout("3g.20gb=1,2g.10gb=1,1g.5gb=2"))
    assert full.ok and (full.unused_mem, full.unused_compute) == (0, 0)
    by = {p.profile: p.start for p in full.placements}
    assert by["3g.20gb"] in (0, 4)
    mixed = validate(a100, parse_layout("4g.20gb=1,3g.20gb=1"))
    assert mixed.ok and [(p.profile, p.start) for p in mixed.placements] == [
        ("4g.20gb", 0), ("3g.20gb", 4)]
    two_3g = validate(a100, {"3g.20gb": 2})
    assert two_3g.ok and (two_3g.unused_mem, two_3g.unused_compute) == (0, 1)
    a80 = validate(MODELS["A100-80GB"], parse_layout("1g.10gb=7"))
    assert a80.ok and a80.unused_gb == 10.0


@pytest.mark.parametrize(("model", "layout", "reason"), [
    ("A100-40GB", "1g.6gb=1", "unknown-profile"),          # an A30 profile on an A100
    ("A30-24GB", "1g.5gb=1", "unknown-profile"),
    ("A100-40GB", "1g.5gb=8", "too-many-instances"),
    ("A100-40GB", "4g.20gb=2", "too-many-instances"),
    ("A100-40GB", "1g.5gb+me=2", "media-extension"),
    ("A30-24GB", "1g.6gb+me=1,2g.12gb+me=1", "media-extension"),
    ("A100-40GB", "3g.20gb=2,1g.5gb=1", "memory-budget"),
    ("A100-40GB", "4g.20gb=1,2g.10gb=2", "compute-budget"),
    ("H100-80GB", "7g.80gb=1,1g.10gb=1", "compute-budget"),
])
def test_infeasible_layouts_name_the_reason(model: str, layout: str, reason: str) -> None:
    lay = validate(MODELS[model], parse_layout(layout))
    assert not lay.ok
    assert reason in {p.reason for p in lay.problems}
    assert lay.unused_mem == 0 and lay.placements == ()


def test_slot_overlap_found_by_the_search_when_budgets_pass() -> None:
    """A made-up GPU whose 2-slice profile may only start at slot 1: two of them fit the budgets
    (4 of 4 slices, 2 of 4 compute) but overlap on the slots."""
    odd = GpuModel("ODD", 4, 4, 4, 4,
                   (Profile("2g.2gb", 2, 1, 2, (1,), False),
                    Profile("1g.1gb", 1, 1, 4, (0, 1, 2, 3), False)),
                   (), True, "test")
    lay = validate(odd, {"2g.2gb": 2})
    assert [p.reason for p in lay.problems] == ["slot-overlap"]
    ok = validate(odd, {"2g.2gb": 1, "1g.1gb": 2})
    assert ok.ok and [(p.profile, p.start) for p in ok.placements] == [
        ("1g.1gb", 0), ("2g.2gb", 1), ("1g.1gb", 3)]


def test_a30_profiles_follow_its_table() -> None:
    a30 = MODELS["A30-24GB"]
    counts = {p.name: p.max_instances for p in a30.profiles}
    assert counts == {"1g.6gb": 4, "1g.6gb+me": 1, "2g.12gb": 2, "2g.12gb+me": 1, "4g.24gb": 1}
    lay = validate(a30, parse_layout("2g.12gb=1,1g.6gb=2"))
    assert lay.ok and (lay.unused_mem, lay.unused_compute) == (0, 0)
    assert validate(a30, parse_layout("1g.6gb+me=1,1g.6gb=3")).ok


def test_pack_wish_list_on_four_a100() -> None:
    res = pack(MODELS["A100-40GB"], 4, parse_layout("1g.5gb=10,3g.20gb=3"))
    assert res.unplaced == {}
    assert res.placed == {"1g.5gb": 10, "3g.20gb": 3}
    assert all(lay.ok for lay in res.layouts)
    assert len(res.layouts) == 3  # fits on 3 of the 4 GPUs


def test_pack_reports_what_does_not_fit() -> None:
    res = pack(MODELS["A100-40GB"], 2, {"3g.20gb": 5, "1g.5gb": 1})
    assert res.placed == {"3g.20gb": 4}
    assert res.unplaced == {"3g.20gb": 1, "1g.5gb": 1}


def test_pack_rejects_profiles_of_another_model() -> None:
    with pytest.raises(MigSpecError):
        pack(MODELS["H100-80GB"], 2, {"1g.5gb": 1})


@pytest.mark.parametrize("text", ["", "1g.5gb", "1g.5gb=seven", "bogus=1", "1g.5gb=99999"])
def test_parse_layout_rejects_junk(text: str) -> None:
    with pytest.raises(MigSpecError):
        parse_layout(text)


@settings(max_examples=60, deadline=None)
@given(model=st.sampled_from(ALL), gpus=st.integers(0, 6), data=st.data())
def test_any_plan_the_packer_returns_is_valid(model: str, gpus: int,
                                              data: st.DataObject) -> None:
    m = MODELS[model]
    names = data.draw(st.lists(st.sampled_from([p.name for p in m.profiles]), min_size=1,
                               max_size=3, unique=True))
    want = {n: data.draw(st.integers(0, 9)) for n in names}
    res = pack(m, gpus, want)
    assert len(res.layouts) <= gpus
    placed: dict[str, int] = {}
    for lay in res.layouts:
        again = validate(m, lay.counts)  # the validator accepts every per-GPU plan
        assert lay.ok and again.ok
        for k, v in lay.counts.items():
            placed[k] = placed.get(k, 0) + v
    for k, v in want.items():
        assert placed.get(k, 0) + res.unplaced.get(k, 0) == v


@settings(max_examples=40, deadline=None)
@given(model=st.sampled_from(ALL), data=st.data())
def test_validator_and_feasible_set_agree(model: str, data: st.DataObject) -> None:
    m = MODELS[model]
    counts = {p.name: data.draw(st.integers(0, p.max_instances + 1)) for p in m.profiles}
    names = tuple(p.name for p in m.profiles)
    vec = tuple(counts[n] for n in names)
    feasible = set(feasible_layouts(m, names))
    assert validate(m, counts).ok == (vec in feasible or not any(vec))


def test_models_from_labels_and_pci_ids() -> None:
    assert model_for_product("NVIDIA-A100-SXM4-40GB") is MODELS["A100-40GB"]
    assert model_for_product("NVIDIA-A100-SXM4-80GB") is MODELS["A100-80GB"]
    assert model_for_product("NVIDIA-A100-PCIE", 81920) is MODELS["A100-80GB"]
    assert model_for_product("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb") is MODELS["A100-40GB"]
    assert model_for_product("NVIDIA-H100-NVL") is MODELS["H100-94GB"]
    assert model_for_product("NVIDIA-H100-80GB-HBM3") is MODELS["H100-80GB"]
    assert model_for_product("NVIDIA-GB200") is None
    assert model_for_product("NVIDIA-GeForce-RTX-4090") is None
    assert model_for_pci(0x20B0) is MODELS["A100-40GB"]
    assert model_for_pci(0x2335) is MODELS["H200-141GB"]
    assert lookup("h100") is MODELS["H100-80GB"] and lookup("nope") is None


def test_mig_parted_schema_errors_are_data() -> None:
    cfg = parse_mig_parted("""version: v2
mig-configs:
  bad-devices:
    - devices: 0
      mig-enabled: true
      mig-devices: {"1g.5gb": 7}
  extra-key:
    - devices: all
      mig-enabled: false
      mig-devices: {"1g.5gb": 1}
      colour: blue
  empty: []
  missing-enabled:
    - devices: [0, 1]
      mig-devices: {"1g.5gb": 1}
surprise: 1
""")
    paths = {i.path for i in cfg.issues}
    assert {"version", "surprise", "mig-configs.bad-devices[0].devices",
            "mig-configs.extra-key[0].colour", "mig-configs.extra-key[0].mig-devices",
            "mig-configs.empty", "mig-configs.missing-enabled[0].mig-enabled"} <= paths
    assert parse_mig_parted("{{{ not yaml").issues[0].path == ""
    assert parse_mig_parted("- a list").issues


def test_mig_parted_devices_and_filters_apply_per_gpu() -> None:
    cfg = parse_mig_parted("""version: v1
mig-configs:
  split:
    - devices: [0]
      mig-enabled: true
      mig-devices: {"1g.5gb": 7}
    - devices: [1]
      device-filter: "0x233010DE"
      mig-enabled: true
      mig-devices: {"1g.10gb": 7}
    - devices: [2]
      mig-enabled: true
      mig-devices: {"7g.40gb": 2}
""")
    assert cfg.issues == ()
    lay = layout_for(cfg, "split", MODELS["A100-40GB"], 4)
    assert lay is not None
    g0, g1, g2, g3 = lay.per_gpu
    assert g0 is not None and g0.ok and g0.unused_mem == 1
    assert g1 is None  # the H100 entry does not apply to an A100
    assert g2 is not None and not g2.ok
    assert g3 is None
    assert [i for i, _ in lay.invalid] == [2]
    assert layout_for(cfg, "missing", MODELS["A100-40GB"], 4) is None
