#!/bin/bash
# The reproductions of issue 14 (docs/reliability-audit.md), run against the debug build
# (`swift build` first). Prints one line per case: id, command, exit code ([exit N] for the
# maprender command of a compound case), seconds, peak RSS, stderr. Not a unit test.
R=$(cd "$(dirname "$0")/.." && pwd)
B=$R/.build/debug/maprender
W=/tmp/safety-audit/w
rm -rf $W; mkdir -p $W; cd $W
cp $R/samples/airports_us.csv in.csv; cp $R/samples/tracks.csv tracks.csv
$B in.csv -o a.png --size 120x90 -q; $B in.csv -o a.svg --size 120x90 -q; $B in.csv -o a.pdf --size 120x90 -q; cp a.pdf b.pdf; cp a.png b.png
run() { # id, then command (string, run with bash -c)
  local id=$1; shift
  local start=$(date +%s.%N)
  /usr/bin/time -f "%M" -o /tmp/safety-audit/rss timeout 120 prlimit --as=4000000000 bash -c "$*" >/tmp/safety-audit/out 2>/tmp/safety-audit/err
  local rc=$?
  local t=$(echo "$(date +%s.%N) - $start" | bc)
  printf '%s\t%s\trc=%s\t%.1fs\t%sKB\t%s\n' "$id" "$*" "$rc" "$t" "$(tail -1 /tmp/safety-audit/rss)" "$(head -c 400 /tmp/safety-audit/err | tr '\n' '|')"
}
# Crashes and hangs
python3 -c "print('jobs: ' + '['*5000 + ']'*5000)" > deep.yaml
python3 -c "print('\n'.join(' '*i + 'k:' for i in range(200)) + ' 1')" > mapping.yaml
python3 -c "print('jobs: [{input: in.csv, output: f.png, filter: ' + '['*5000 + ']'*5000 + '}]')" > filter.yaml
python3 -c "print('{\"jobs\":' + '['*600 + ']'*600 + '}')" > deep.json
python3 - <<'P'
names="abcdefghi"
t='a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
for k in range(1,9): t+=f'{names[k]}: &{names[k]} ['+','.join(['*'+names[k-1]]*9)+']\n'
open('bomb.yaml','w').write(t+'jobs: [*i]\n')
t='a: &a [x,x,x,x,x,x,x,x,x]\n'
for k in range(1,9): t+=f'{names[k]}: &{names[k]} [' + ','.join(['*'+names[k-1]]*9)+']\n'
open('bomb2.yaml','w').write(t+'jobs: *i\n')
P
run C1-deep-yaml "$B batch deep.yaml"
run C1-deep-mapping "$B batch mapping.yaml"
run C1-deep-filter "$B batch filter.yaml"
run C1-deep-json "$B batch deep.json"
run C2-alias-bomb "$B batch bomb.yaml"
run C2-alias-bomb-b "$B batch bomb2.yaml"
run C3-duration-1e9 "$B animate tracks.csv -o fr1 --duration 1e9"
run C3-frames-1e9 "$B animate tracks.csv -o fr2 --frames 1000000000"
run C3-duration-1e6 "$B animate tracks.csv -o fr3 --duration 1e6"
python3 -c "print('lat,lon,name'); print('10,20,' + 'x'*100000)" > label100k.csv
python3 -c "print('lat,lon,name'); print('10,20,' + 'x'*1000000)" > label1m.csv
python3 -c "print('lat,lon,name'); print('10,20,' + 'word '*2000000)" > label10m.csv
run C4-callout-100k "$B label100k.csv -o l1.png --label name --label-style callout --size 400x300"
run C4-callout-1m "$B label1m.csv -o l2.png --label name --label-style callout --size 400x300"
run C4-plain-10MB "$B label10m.csv -o l3.png --label name --size 400x300"
python3 - <<'P'
import zlib, struct
def png(path, rows_on):
    w=h=12000
    raw=bytearray()
    row0=b'\x00'+bytes(w//8)
    row1=b'\x00'+bytes([0xAA])*(w//8)
    for y in range(h): raw+= row1 if y in rows_on else row0
    def chunk(t,b): return struct.pack('>I',len(b))+t+b+struct.pack('>I',zlib.crc32(t+b))
    d=b'\x89PNG\r\n\x1a\n'+chunk(b'IHDR',struct.pack('>IIBBBBB',w,h,1,0,0,0,0))+chunk(b'IDAT',zlib.compress(bytes(raw),9))+chunk(b'IEND',b'')
    open(path,'wb').write(d)
png('big1.png', set()); png('big2.png', set(range(0,12000,7)))
P
ls -la big1.png big2.png | awk '{print "#", $5, $9}'
run C5-compare-12000 "$B compare big1.png big2.png"
# Data destroyed
$B animate tracks.csv -o frames --size 120x90 --frames 12 -q
rm frames/frame-00009.png; mkdir -p frames/frame-00009.png/sub; echo data > frames/frame-00009.png/sub/data.txt; echo mine > frames/frame-00099.png
run D1-cleanup-folder "$B animate tracks.csv -o frames --size 120x90 --frames 5 -q; echo \"[exit \$?]\" >&2; ls -A frames | tr '\n' ' ' >&2; test -f frames/frame-00009.png/sub/data.txt && echo ' data kept' >&2"
rm frames/frame-00002.png; cp tracks.csv frames/frame-00002.png
run D1-input-as-frame "$B animate frames/frame-00002.png -o frames --format png --frames 5 -q; echo \"[exit \$?]\" >&2; cmp frames/frame-00002.png tracks.csv && echo 'input intact' >&2"
run D2-output-onto-input "$B in.csv -o in.csv --format png; echo \"[exit \$?]\" >&2; cmp in.csv $R/samples/airports_us.csv && echo 'input intact' >&2"
run D2-summary-onto-input "$B in.csv -o m.png --summary in.csv; echo \"[exit \$?]\" >&2; cmp in.csv $R/samples/airports_us.csv && echo 'input intact' >&2"
run D2-output-and-summary-same "$B in.csv -o map.svg --summary map.svg; echo \"[exit \$?]\" >&2; test -e map.svg || echo 'nothing written' >&2"
printf 'defaults: { input: in.csv, size: 120x90 }\njobs:\n  - output: j.png\n  - output: m.png\n' > m.png
run D2-batch-output-onto-manifest "$B batch m.png -q"
printf 'defaults: { input: in.csv, size: 120x90 }\njobs:\n  - { output: in.csv, format: png }\n' > onto.yaml
run D2-batch-output-onto-input "$B batch onto.yaml -q; echo \"[exit \$?]\" >&2; cmp in.csv $R/samples/airports_us.csv && echo 'input intact' >&2"
printf 'defaults: { input: in.csv, size: 120x90 }\njobs:\n  - output: r.png\n' > rep.yaml
run D2-report-onto-input "$B batch rep.yaml -q --report in.csv; echo \"[exit \$?]\" >&2; cmp in.csv $R/samples/airports_us.csv && echo 'input intact' >&2"
run D2-compare-diff-onto-golden "$B compare a.png b.png --diff a.png"
run D2-compare-diff-onto-golden2 "$B compare b.png a.png --diff a.png"
run D3-dev-null-as-root "$B in.csv -o /dev/null --format png --size 120x90; echo \"[exit \$?]\" >&2; stat -c '%F' /dev/null >&2"
echo old > real.png; chmod 600 real.png; ln -sf real.png link.png
run D3-symlink-and-mode "$B in.csv -o link.png --size 120x90; echo \"[exit \$?]\" >&2; stat -c '%N %a' link.png real.png | tr '\n' ' ' >&2"
run D5-empty-filter "echo good > keep.png; $B in.csv -o keep.png --filter '[\"==\", [\"get\", \"state\"], \"nowhere\"]'; echo \"[exit \$?]\" >&2; cat keep.png >&2"
printf 'lat,lon\n999,0\nx,y\n' > bad.csv
run D5-all-invalid "echo good > keep.png; $B bad.csv -o keep.png; echo \"[exit \$?]\" >&2; cat keep.png >&2"
# Batch outside its folder
mkdir -p jobs; cp in.csv jobs/pts.csv
printf 'defaults: { input: pts.csv, size: 120x90 }\njobs:\n  - output: ../../etc/x.png\n' > jobs/up.yaml
run B1-dotdot-output "$B batch jobs/up.yaml -q; echo \"[exit \$?]\" >&2; test -e /tmp/etc/x.png && echo WRITTEN >&2"
printf 'defaults: { input: pts.csv, size: 120x90 }\njobs:\n  - output: /tmp/safety-audit/abs.png\n' > jobs/abs.yaml
run B2-absolute-output "$B batch jobs/abs.yaml -q; echo \"[exit \$?]\" >&2; test -e /tmp/safety-audit/abs.png && echo WRITTEN >&2"
echo 'SECRET-TOKEN-123, more' > /tmp/safety-audit/secret.txt
printf 'jobs:\n  - { input: /tmp/safety-audit/secret.txt, output: s.png }\n' > jobs/sec.yaml
run B3-secret-input-batch "$B batch jobs/sec.yaml --allow-outside-root --report jobs/rep.json; echo \"[exit \$?]\" >&2; grep -c SECRET jobs/rep.json >&2"
run B3-secret-input-render "$B /tmp/safety-audit/secret.txt -o s.png"
printf 'name\033[31m,value\n1,2\n' > esc.csv
run B4-escape-header "$B esc.csv -o e.png 2>&1 | od -c | grep -c '033' >&2; echo \"[exit \${PIPESTATUS[0]}]\" >&2"
# Misleading messages
run M1-compare-devnull "$B compare a.png /dev/null"
run M1-compare-dot "$B compare a.png ."
run M1-compare-svg-png "$B compare a.svg a.png"
python3 - <<'P'
d=bytearray(open('a.png','rb').read()); i=d.find(b'IDAT'); d[i+20]^=0xFF; open('badidat.png','wb').write(d)
import zlib,struct
# a corrupt IDAT with a valid CRC (bad zlib data)
d=bytearray(open('a.png','rb').read()); i=d.find(b'IDAT'); n=struct.unpack('>I',d[i-4:i])[0]
body=bytearray(d[i+4:i+4+n]); body[10]^=0xFF; body[11]^=0xFF
d[i+4:i+4+n]=body; d[i+4+n:i+8+n]=struct.pack('>I',zlib.crc32(b'IDAT'+bytes(body)))
open('badzlib.png','wb').write(d)
P
run M2-corrupt-idat-crc "$B compare a.png badidat.png"
run M2-corrupt-idat-zlib "$B compare a.png badzlib.png"
run M3-identical-pdfs "$B compare a.pdf b.pdf"
run M4-bbox-range "$B in.csv -o x.png --bbox=-200,-100,200,100"
run M4-bbox-flat "$B in.csv -o x.png --bbox=10,10,10,20"
run M5-size-0x0 "$B in.csv -o x.png --size 0x0"
run M6-size-neg "$B in.csv -o x.png --size -5x10"
printf 'defaults: { input: in.csv }\njobs:\n  - { output: h.png, size: 0x0 }\n' > hex.yaml
run M7-batch-size-hex "$B batch hex.yaml -q"
mkdir -p sdir
run M8-style-dir "$B in.csv -o x.png --style sdir"
run M9-missing-output-folder "$B in.csv -o /nonexistent/dir/x.png"
printf 'defaults: { input: in.csv, size: 120x90 }\njobs:\n  - output: r1.png\n' > r.yaml
run M9-bad-report-folder "$B batch r.yaml -q --report /nonexistent/dir/r.json; echo \"[exit \$?]\" >&2; test -e r1.png && echo 'job ran' >&2"
echo '{ "marker": { "size": ["/", 1, 0] } }' > s1.json
echo '{ "marker": { "size": -50 } }' > s2.json
echo '{ "marker": { "size": ["-", 0, 50] } }' > s2b.json
echo '{ "marker": { "fill": ["get", "city"] } }' > s3.json
run M10-size-div0 "$B in.csv -o x.png --size 120x90 --style s1.json"
run M10-size-div0-strict "$B in.csv -o x.png --size 120x90 --style s1.json --strict"
run M10-size-neg-const "$B in.csv -o x.png --size 120x90 --style s2.json"
run M10-size-neg-expr "$B in.csv -o x.png --size 120x90 --style s2b.json"
run M10-fill-not-colour "$B in.csv -o x.png --size 120x90 --style s3.json"
run M11-filter-get "$B in.csv -o x.png --filter '[\"get\",\"state\"]'"
run M11-filter-plus "$B in.csv -o x.png --filter '[\"+\",1,2]'"
run M11-filter-42 "$B in.csv -o x.png --filter 42"
printf '{"type":"Feature","properties":{"name":"caf\xe9"},"geometry":{"type":"Point","coordinates":[1,2]}}' > u.geojson
run M12-utf8 "$B u.geojson -o x.png --label name --size 120x90"
run M12-utf8-strict "$B u.geojson -o x.png --label name --size 120x90 --strict"
printf 'id,time,lat,lon\na,0,10,10\na,10,20,20\na,10,30,30\na,20,40,40\n' > dup1.csv
printf 'id,time,lat,lon\na,0,10,10\na,10,30,30\na,10,20,20\na,20,40,40\n' > dup2.csv
run M13-dup-samples "$B animate dup1.csv -o d1 --frames 3 --size 120x90 --format png; echo \"[exit \$?]\" >&2; $B animate dup2.csv -o d2 --frames 3 --size 120x90 --format png -q; cmp d1/frame-00002.png d2/frame-00002.png && echo 'same frames' >&2"
run M14-tiny-bbox "$B in.csv -o x.png --bbox=0,0,1e-12,1e-12 --summary - | grep -o '\"zoom\" *: *[0-9.]*' >&2; echo \"[exit \${PIPESTATUS[0]}]\" >&2"
run X-jobs-huge "$B animate tracks.csv -o fj --size 120x90 --frames 3 --jobs 9223372036854775807 -q"
run X-stdin-csv-bound "python3 -c \"print('lat,lon'); [print(f'{i%80}.5,{i%170}.5') for i in range(5000)]\" | $B - -o x.png --size 100x100 --max-memory 1; echo \"[exit \${PIPESTATUS[1]}]\" >&2"
run X-inspect-bound "$B inspect $R/samples/world_cities.csv --max-memory 2"
run X-cluster-bound "$B cluster $R/samples/world_cities.csv --zoom 1 --max-memory 2"
run M14-zoom-25 "$B in.csv -o x.png --center 0,0 --zoom 25"
