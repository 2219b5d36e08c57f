/**
 * Shell for commit hooks that forge git objects (attack rounds 6 and 7), shared by the hooked
 * commit's tests in the jail and through dist/. Each writes `evil\n` under a blob's name.
 */

/** Writes `evil\n` as a zlib'd blob into the file named by its first argument. */
export const FORGE_BLOB = `node -e 'require("fs").writeFileSync(process.argv[1], require("zlib").deflateSync(Buffer.from("blob 5\\0evil\\n")))'`

/** The loose file of the object whose id the shell expression `sha` holds. */
export const looseFile = (sha: string, objects = '.git/objects') =>
  `${objects}/$(echo ${sha} | cut -c1-2)/$(echo ${sha} | cut -c3-)`

/**
 * Overwrites the repository's first pack in place (same name) with one holding every object of
 * it, the blob `path` has at HEAD forged: git reads packs before loose files and does not check
 * an object's bytes against its name.
 */
export function overwritePack(path: string): string {
  return `sha=$(git rev-parse HEAD:${path})
P=$(ls .git/objects/pack/*.pack | head -1); P=\${P%.pack}
S=$(mktemp -d); GIT_DIR=$S git init -q --bare; GIT_DIR=$S git unpack-objects -q < $P.pack
f=${looseFile('$sha', '$S/objects')}; rm -f $f; ${FORGE_BLOB} $f
H=$(git show-index < $P.idx | awk '{print $2}' | GIT_DIR=$S git pack-objects $S/out)
mv -f $S/out-$H.pack $P.pack; mv -f $S/out-$H.idx $P.idx; rm -f $P.rev`
}
