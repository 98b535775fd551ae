// Generated from porthole-elicitation's UrlWarning::explanation and ::permission_explanation by
// `PORTHOLE_BLESS=1 cargo test -p porthole-elicitation --test ui_tables`. Do not edit.
import type { UrlWarningCode } from "../protocol";

/** What a dialog says for each warning code. */
export const WARNING_TEXT: Record<UrlWarningCode, string> = {
  "punycode": "This address uses international (non-English) characters in its name, which can be used to imitate a well-known site.",
  "mixed-script": "This address mixes letters from different alphabets in one word, a common trick to imitate a well-known site.",
  "confusable": "This address uses characters that look like other letters (look-alike characters).",
  "bidi-control": "This text contains hidden characters that change the reading direction, so what you see may not be what it says.",
  "invisible-char": "This text contains invisible characters that you cannot see.",
  "ip-host": "This address is a bare number (IP address) instead of a named website, so you cannot tell who runs it.",
  "non-https": "This address does not use a secure connection (https), so others on the network could see or change what you send.",
  "unusual-port": "This address uses an unusual port number, which ordinary websites rarely do.",
};

/** What a permission dialog says, where it differs (hidden characters in a title or option). */
export const PERMISSION_WARNING_TEXT: Partial<Record<UrlWarningCode, string>> = {
  "bidi-control": "Hidden text-direction characters are present in the title or an option: the text may not read as it is meant. They are shown as ⟨U+…⟩.",
  "invisible-char": "Invisible characters are present in the title or an option. They are shown as ⟨U+…⟩.",
};
