#!/bin/sh
# tests/shell-hostile.sh — file names that reach a shell stay one word and
# run nothing: tools/slurm-sweep writes the scenario files, dlsim and the
# output into its jobs' shell scripts (sbatch --wrap).  A fake sbatch keeps
# each script; they run here against a fake dlsim that records its
# arguments.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
src=${DLSIM_SRCDIR:-.}
case "$src" in /*) ;; *) src="$(pwd)/$src" ;; esac

mkdir -p "$tmp/bin" "$tmp/work"
cat > "$tmp/bin/sbatch" <<EOF
#!/bin/sh
# keeps the --wrap script as wrap.N; prints a job id
n=\$(ls "$tmp" | grep -c '^wrap\.')
while [ \$# -gt 0 ]; do
  case "\$1" in --wrap) printf '%s\n' "\$2" > "$tmp/wrap.\$n"; shift ;; esac
  shift
done
echo "10\$n"
EOF
cat > "$tmp/bin/fake dlsim" <<EOF
#!/bin/sh
# records its arguments, one a line; run -o FILE makes FILE
for a in "\$@"; do printf '[%s]\n' "\$a"; done >> "$tmp/args"
[ "\$1" = run ] && for last in "\$@"; do :; done && : > "\$last"
exit 0
EOF
chmod +x "$tmp/bin/sbatch" "$tmp/bin/fake dlsim"

# a scenario file and an output whose names hold a command, quotes, spaces
# (the jobs run in $tmp/work: a command would make a pwned-* file there)
f="$tmp/work/a\$(touch pwned-dollar)\`touch pwned-bq\`'q\" x.ini"
printf '[peers]\ncount = 3\n' > "$f"
o="$tmp/work/o'ut \$(touch pwned-out).db"
PATH="$tmp/bin:$PATH" sh "$src/tools/slurm-sweep" --dlsim "$tmp/bin/fake dlsim" --out "$o" "$f" > "$out" 2>&1 \
  && ok || { ko "slurm-sweep: exit $?"; cat "$out"; }
[ -s "$tmp/wrap.0" ] && [ -s "$tmp/wrap.1" ] && ok || ko "slurm-sweep: no job scripts"
# the jobs, as Slurm would run them: shard 0, then the merge
( cd "$tmp/work" && SLURM_JOB_ID=7 SLURM_ARRAY_TASK_ID=0 TMPDIR="$tmp" sh "$tmp/wrap.0" ) > "$out" 2>&1 \
  && ok || { ko "the shard's job: exit $?"; cat "$out"; }
( cd "$tmp/work" && sh "$tmp/wrap.1" ) > "$out" 2>&1 && ok || { ko "the merge job: exit $?"; cat "$out"; }
ls "$tmp/work" | grep -q '^pwned' && ko "a job ran a command: $(ls "$tmp/work" | grep '^pwned')" || ok
grep -qxF "[$f]" "$tmp/args" && ok || { ko "the scenario file is not one argument"; cat "$tmp/args"; }
grep -qxF "[$o]" "$tmp/args" && grep -qxF "[$o.part-0.db]" "$tmp/args" && ok \
  || { ko "the output is not one argument"; cat "$tmp/args"; }
[ -e "$o.part-0.db" ] && ok || ko "the shard's database was not copied next to the output"

finish
