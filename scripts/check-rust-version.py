"""Check the workspace's rust-version against its dependencies.

The workspace declares a minimum supported Rust version (rust-version in
Cargo.toml). It must be at least the highest rust-version any dependency in
the graph declares, else users on the declared version cannot build. Only
this machine's toolchain can be installed here, so the declared version
cannot be built directly; `cargo metadata` gives every package's own
declaration instead.

Usage: python3 scripts/check-rust-version.py   (from the repository root)
"""
import json
import subprocess
import sys


def version(text: str) -> tuple:
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def main() -> int:
    metadata = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--locked"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    members = set(metadata["workspace_members"])
    ours = {p["rust_version"] for p in metadata["packages"] if p["id"] in members}
    if len(ours) != 1 or None in ours:
        print(f"workspace members declare different rust-versions: {sorted(map(str, ours))}")
        return 1
    declared = ours.pop()
    highest = max(
        (p for p in metadata["packages"] if p["id"] not in members and p.get("rust_version")),
        key=lambda p: version(p["rust_version"]),
    )
    print(
        f"rust-version {declared}; highest in the dependency graph: "
        f"{highest['rust_version']} ({highest['name']} {highest['version']})"
    )
    if version(declared) < version(highest["rust_version"]):
        print("the declared rust-version is below a dependency's: raise it in Cargo.toml")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
