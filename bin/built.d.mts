// Types of bin/built.mjs (plain JavaScript: bin/fragsync.js reads it before tsx is registered).
export declare const DIST: string;
export declare const BUILD_INFO: string;
/** The path of dist/<file> when the build is there and current, else null. */
export declare function builtFile(file: string, root?: URL): string | null;
