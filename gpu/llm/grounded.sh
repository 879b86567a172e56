#!/bin/bash
# gpu/llm/grounded.sh: the GPU acceptance of issue 26 for `rocm-perf llm-optimize` (facts
# by default, more than one shape, a physical floor), in one run on an NVIDIA GPU
# (docs/validation/llm-optimize-gpu.md).  The model is the stand-in server answering
# from answers/grounded; everything else is real.
#
# The kernel is axpby of gpu/llm/shapes.cu (uncoalesced), launched at three sizes.  A
# default run (no --analysis, no --shapes) gets three answers:
#   1. coalesced, but the loop bound is the captured n (33554432): right on the captured
#      shape only -> wrong-result on shape 2, named
#   2. coalesced, but it stops working after its fifth launch in a process (a __device__
#      counter): the replay's two checked launches and the program's checked launches pass,
#      the timed launches do nothing -> impossible, below the physical floor
#   3. coalesced -> accepted, beside the roofline headroom it had
# and its first prompt must carry the roofline and bottleneck of the captured dispatch.
# The bundle is gpu/llm/bundle.sh's.  On the GPU machine, from the repository root:
#   OUT=DIR bash .device-llm/grounded.sh
# RPL_ROUNDS (default 6) and RPL_APP_ROUNDS (default 5) set --rounds and --app-rounds.
# $OUT gets summary.txt, machine.txt, grounded.tar.gz (reports, transcript, requests,
# output) and logs.tar.gz.  Exit 0 when every check passes, 1 when one fails, 77 without
# a GPU.
set -u
gpu_lib=$(dirname "$0")/lib.sh                          # in the bundle
[ -f "$gpu_lib" ] || gpu_lib=$(dirname "$0")/../lib.sh  # in the repository
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$gpu_lib"
check_start grounded
key=rpl-SENTINEL-gpu-llm-grounded-7d2c
export ROCM_PERF_TEMPLATES=$bundle/templates
server_pid=
# shellcheck disable=SC2317 # run by the EXIT trap
finish() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
    check_finish
}
trap finish EXIT

check_machine "python3: $(python3 --version 2>&1)"
check_need_gpu
scratch_repo "$bundle/gpu/shapes.cu"

# The program alone first: its own output, for the record.
(cd "$work" && nvcc -O3 -arch=native -x cu -o shapes_alone "$repo/src/shapes.cu" &&
    ./shapes_alone --reps 20) >"$work/logs/alone.out" 2>&1
log "   the program alone: exit $? ($(tr '\n' ' ' <"$work/logs/alone.out"))"
serve grounded

log "== grounded: rocm-perf llm-optimize src/shapes.cu \"./shapes --reps 20\" --max-iters 3"
t0=$SECONDS
OPENAI_API_KEY=$key timeout -k 10 300 "$rp" llm-optimize "$repo/src/shapes.cu" \
    "./shapes --reps 20" --max-iters 3 --max-repairs 0 --rounds "${RPL_ROUNDS:-6}" \
    --app-rounds "${RPL_APP_ROUNDS:-5}" --seed-flag --seed --auto-approve --base-url "$url" \
    --model standin-model --artifacts "$work/art" -v \
    >"$work/logs/grounded.out" 2>"$work/logs/grounded.err"
rc=$?
log "   exit $rc in $((SECONDS - t0)) s"
kill "$server_pid" 2>/dev/null
wait "$server_pid" 2>/dev/null
server_pid=
check_untouched "$work/logs/untouched.txt"

mkdir -p "$work/keep"
(cd "$work/art" 2>/dev/null && cp -r junit.xml summary.md optimize-log.json \
    llm-transcript.jsonl counters "$work/keep/" 2>/dev/null)
cp "$work/logs"/grounded.* "$work/keep/"
# A counter pass that failed: the same command again, verbose, for the record.
if ! grep -Eq '"counters":[[:space:]]*"' "$work/art/optimize-log.json" 2>/dev/null; then
    snap=$(find "$work/art/snapshots" -mindepth 1 -maxdepth 1 -type d | sort | head -1)
    log "== the counter pass by hand: profile -v over replay full-vm $snap"
    "$rp" profile -v --out "$work/keep/counters-by-hand" -- "$rp" replay full-vm "$snap" \
        --iterations 5 >"$work/keep/counters-by-hand.out" 2>&1
    tail -20 "$work/keep/counters-by-hand.out" >&2
fi

# A dispatch not kept as a shape: captured again by hand (from the program built above)
# and replayed with debug logging, whose lines name what this process had mapped near
# each span that moved.
dropped=$(sed -n 's/.*: dispatch \([0-9]*\) is not used as another shape.*/\1/p' \
    "$work/logs/grounded.err" | head -1)
if [ -n "$dropped" ]; then
    log "== dispatch $dropped was dropped: capture and replay by hand, debug log"
    (cd "$work" && "$rp" capture --kernel '^axpby' --dispatch "$dropped" --out dropped -- \
        ./shapes_alone --reps 20 && ROCM_PERF_LOG=debug "$rp" replay full-vm dropped) \
        >"$work/keep/dropped-replay.txt" 2>&1
    log "   exit $?"
    grep -E "relocation|reserved|near 0x" "$work/keep/dropped-replay.txt" | tail -20 >&2
fi

python3 - "$work/keep" "$rc" "$key" <<'EOF' | tee "$out/summary.txt"
import json, os, re, sys, xml.etree.ElementTree as ET
keep, rc, key = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ok_all = True
def check(ok, what):
    global ok_all
    ok_all &= bool(ok)
    print(("pass  " if ok else "FAIL  ") + what)
def load(name):
    try:
        with open(os.path.join(keep, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
log = load("optimize-log.json") or {}
reqs = []
try:
    with open(os.path.join(keep, "grounded.requests.jsonl")) as f:
        reqs = [json.loads(l) for l in f if l.strip()]
except OSError:
    pass
prompts = [r["body"]["messages"][-1]["content"] for r in reqs]
cands = log.get("candidates", [])
print(f"exit status {rc}; {len(reqs)} requests; {len(cands)} candidates")
print("| turn | candidate | decision | speedup (95% CI) | replay s | seconds | why |")
print("| --- | --- | --- | --- | ---: | ---: | --- |")
for i, c in enumerate(cands):
    ci = c.get("speedup_ci") or [None, None]
    sp = "-" if c.get("speedup") is None else "%.3f (%.3f-%.3f)" % (c["speedup"], ci[0], ci[1])
    rs = (c.get("steps", {}).get("replay") or {}).get("seconds")
    print(f"| {i+1} | {c['id']} | {c['decision']} | {sp} | "
          f"{'-' if rs is None else '%.1f' % rs} | {c.get('seconds') or 0:.1f} | {c['message']} |")
snap = (log.get("snapshots") or [{}])[0]
facts = snap.get("facts") or {}
print("shapes:")
for s in snap.get("shapes") or []:
    print("  " + s["shape"])
print("facts: " + json.dumps(facts))
dec = [c["decision"] for c in cands]
check(rc == 0, "llm-optimize exit 0")
check(dec == ["wrong-result", "impossible", "accepted"], f"verdicts {dec}")
if len(cands) == 3:
    check(cands[0]["message"].startswith("replay: on shape ") and
          re.search(r"on shape [2-9] of [2-9] \(.*param 1 \(int\) = (16777217|1000003)[;)].*, "
                    r"not the one timed", cands[0]["message"]),
          "hard-coded n: wrong-result by the replay of another shape, named")
    check("below the physical floor" in cands[1]["message"], "skipped launches: impossible, "
          "with the median and the floor")
    check("headroom was" in cands[2]["message"], "accepted beside its roofline headroom")
check(len(snap.get("shapes") or []) == 3, "three shapes captured")
check(facts.get("floor_ns") is not None, "a physical floor from the counter pass")
p1 = prompts[0] if prompts else ""
def section(p, name):
    m = re.search(r"## " + re.escape(name) + r"\n(.*?)\n\n## ", p, re.S)
    return m.group(1) if m else ""
for name in ["Static resources and occupancy", "Roofline", "Bottleneck",
             "Instruction trace (ATT)", "Launch geometry"]:
    print(f"--- prompt 1, {name}:\n{section(p1, name)}")
check("Measured on the version below by a counter pass" in section(p1, "Roofline"),
      "prompt 1: roofline of the captured dispatch")
check("Measured on the version below by a counter pass" in section(p1, "Bottleneck"),
      "prompt 1: bottleneck of the captured dispatch")
check(not section(p1, "Static resources and occupancy").startswith("Not available"),
      "prompt 1: static resources")
if len(prompts) > 2:
    check("verdict `wrong-result`" in prompts[1] and "every size" in prompts[1],
          "prompt 2: the shape failure and not to depend on sizes")
    check("verdict `impossible`" in prompts[2], "prompt 3: the impossible verdict")
leaked = any(key in open(os.path.join(root, f), errors="replace").read()
             for root, _, files in os.walk(keep) for f in files)
check(not leaked, "the key in no kept file")
print("ALL PASS" if ok_all else "SOME FAILED")
sys.exit(0 if ok_all else 1)
EOF
status=${PIPESTATUS[0]}
cat "$work/logs/untouched.txt" >>"$out/summary.txt"
grep -q "untouched: yes" "$work/logs/untouched.txt" || status=1
tar -czf "$out/grounded.tar.gz" -C "$work" keep 2>/dev/null
exit "$status"
