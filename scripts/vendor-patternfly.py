#!/usr/bin/python3
"""Writes cockpit/patternfly.css: the parts of PatternFly 4 the Cockpit page uses, from the npm
package's tarball (a maintainer runs this by hand; nothing is built or downloaded at build time).

  npm pack @patternfly/patternfly@4.224.4      # the version Cockpit 287 builds its pages with
  /usr/bin/python3 scripts/vendor-patternfly.py patternfly-patternfly-4.224.4.tgz

4.224.4 is the version Cockpit 287 (Debian 12) builds with: its package.json at tag 287 pins
"@patternfly/patternfly": "4.224.4" (cockpit-project/cockpit, commit 96ecd6dc, 2023-03-06).

Cockpit 287 serves no shared PatternFly stylesheet: /usr/share/cockpit/base1 holds
cockpit.js and translations only, and each of Cockpit's own pages (users, systemd, ...) bundles the
PatternFly it uses into its own CSS. So the page carries one too: patternfly-base.css (the tokens
and the reset) and the components the page uses, unchanged, but for the @font-face rules: the Red
Hat fonts come from Cockpit itself (/usr/share/cockpit/static/fonts, ../../static/fonts from the
page, as Cockpit's own pages load them), and the icon fonts and their classes are left out (the
page uses none).
"""
import hashlib
import re
import sys
import tarfile

COMPONENTS = ["Page", "Card", "Title", "Content", "DescriptionList", "Label", "Alert", "Button", "Progress",
              "Table", "Form", "FormControl", "Check", "SkipToContent", "Divider"]
FILES = {"DescriptionList": ["description-list.css"], "FormControl": ["form-control.css"],
         "SkipToContent": ["skip-to-content.css"]}
# The select's arrow, drawn inline (Cockpit's CSP allows data: images); the other status icons of
# the sprite the package's CSS names (assets/images, not shipped here) are left out.
CARET = ('url("data:image/svg+xml,%3Csvg xmlns=\'http://www.w3.org/2000/svg\' viewBox=\'0 0 320 512\'%3E'
         '%3Cpath fill=\'%23151515\' d=\'M31 192h258c18 0 27 22 14 34L174 355a19 19 0 0 1-28 0L17 226c-13-12-4-34 14-34z\'/%3E%3C/svg%3E")')
FONTS = """/* The Red Hat fonts Cockpit ships (cockpit-ws: /usr/share/cockpit/static/fonts), as PatternFly names them. */
@font-face { font-family: "RedHatText"; src: url("../../static/fonts/RedHatText-Regular.woff2") format("woff2"); font-style: normal; font-weight: 400; }
@font-face { font-family: "RedHatText"; src: url("../../static/fonts/RedHatText-Medium.woff2") format("woff2"); font-style: normal; font-weight: 700; }
@font-face { font-family: "RedHatDisplay"; src: url("../../static/fonts/RedHatDisplay-Regular.woff2") format("woff2"); font-style: normal; font-weight: 300; }
@font-face { font-family: "RedHatDisplay"; src: url("../../static/fonts/RedHatDisplay-Medium.woff2") format("woff2"); font-style: normal; font-weight: 400; }
@font-face { font-family: "RedHatDisplay"; src: url("../../static/fonts/RedHatDisplay-Bold.woff2") format("woff2"); font-style: normal; font-weight: 700; }
"""


def main():
    tgz = sys.argv[1]
    digest = hashlib.sha256(open(tgz, "rb").read()).hexdigest()
    with tarfile.open(tgz) as t:
        def read(name):
            return t.extractfile("package/" + name).read().decode()
        import json
        meta = json.loads(read("package.json"))
        base = re.sub(r"@font-face\s*\{[^}]*\}\s*", "", read("patternfly-base.css"))
        # The icon fonts' classes go with their fonts.
        base = re.sub(r"(?m)^(\.pf-icon-[^{]*|\.fa,\s*\.fas\s*)\{[^}]*\}\s*", "", base)
        parts = [f"""/* PatternFly {meta['version']} ({meta['name']}, license {meta['license']}: cockpit/PATTERNFLY-LICENSE),
   from its npm tarball (sha256 {digest}) by scripts/vendor-patternfly.py: patternfly-base.css without
   its @font-face rules and icon classes, then components/{{{','.join(COMPONENTS)}}}. Do not edit: run the script. */
""", FONTS, base]
        for c in COMPONENTS:
            for f in FILES.get(c, [c.lower() + ".css"]):
                text = read(f"components/{c}/{f}").replace('url("../../assets/images/status-icon-sprite.svg#select")', CARET)
                text = re.sub(r'url\("\.\./\.\./assets/images/status-icon-sprite\.svg#[a-z]+"\)', "none", text)
                parts.append(f"/* components/{c}/{f} */\n" + text)
    css = "\n".join(parts)
    if "url(" in re.sub(r'url\("(\.\./\.\./static/fonts/[A-Za-z-]+\.woff2|data:[^"]*)"\)', "", css):
        sys.exit("a url() left in the CSS: it would not load under Cockpit")
    open("cockpit/patternfly.css", "w").write(css)


if __name__ == "__main__":
    main()
