// Text as the command line shows it (CommandLineSupport's TextEscaping): controls, line and
// paragraph separators, bidi controls and invisible characters are written as escapes, so that
// nothing in a title can reorder the line or hide in it. Joiners, variation selectors and tag
// characters stay where they shape a visible neighbour (emoji, scripts that need joiners).

const bidiControl = /\p{Bidi_Control}/u;
const ignorable = /\p{Default_Ignorable_Code_Point}/u;
const emoji = /\p{Emoji}/u;
const variationSelector = /\p{Variation_Selector}/u;
const whiteSpace = /\p{White_Space}/u;

/** Whether a joiner, a variation selector or a tag character: what shapes a neighbour. */
function isShaping(c) {
  const v = c.codePointAt(0);
  if (v < 0x180b) return false;
  return v === 0x200c || v === 0x200d || (v >= 0xe0020 && v <= 0xe007f) || variationSelector.test(c);
}

/** Whether the character must never be shown as it is. */
function needsEscape(c) {
  const v = c.codePointAt(0);
  if (v >= 0x20 && v < 0x7f) return false;
  if (v <= 0x1f || (v >= 0x7f && v <= 0x9f) || v === 0x2028 || v === 0x2029) return true;
  return bidiControl.test(c) || (ignorable.test(c) && !isShaping(c));
}

function isVisibleNonASCII(c) {
  return c.codePointAt(0) > 0x7f && !whiteSpace.test(c) && !needsEscape(c) && !isShaping(c);
}

/** How many characters from `i` (a shaping one) stay, or 0 when it is escaped. */
function shapingRun(i, chars, afterKept) {
  if (!afterKept || i === 0) return 0;
  const previous = chars[i - 1];
  const v = chars[i].codePointAt(0);
  if (v === 0x200c || v === 0x200d) {
    if (i + 1 >= chars.length || !(isVisibleNonASCII(previous) || variationSelector.test(previous))) return 0;
    return isVisibleNonASCII(chars[i + 1]) ? 1 : 0;
  }
  if (v >= 0xe0020 && v <= 0xe007f) {
    if (previous.codePointAt(0) !== 0x1f3f4) return 0;
    let end = i;
    while (end < chars.length && end - i < 6) {
      const t = chars[end].codePointAt(0);
      if (!((t >= 0xe0030 && t <= 0xe0039) || (t >= 0xe0061 && t <= 0xe007a))) break;
      end += 1;
    }
    if (end === i || end >= chars.length || chars[end].codePointAt(0) !== 0xe007f) return 0;
    return end - i + 1;
  }
  if (isShaping(previous) || !(emoji.test(previous) || isVisibleNonASCII(previous))) return 0;
  return 1;
}

function escapeOne(c) {
  switch (c) {
    case "\t": return "\\t";
    case "\n": return "\\n";
    case "\r": return "\\r";
    case "\u001b": return "\\e";
    default: return "\\u{" + c.codePointAt(0).toString(16).toUpperCase() + "}";
  }
}

/** `text` with every unsafe character written as an escape (as `sectionctl show` prints it). */
export function escaped(text) {
  const chars = Array.from(String(text));
  let result = "";
  let previousKept = false;
  let i = 0;
  while (i < chars.length) {
    const c = chars[i];
    if (isShaping(c)) {
      const length = shapingRun(i, chars, previousKept);
      if (length > 0) {
        result += chars.slice(i, i + length).join("");
        i += length;
        previousKept = true;
        continue;
      }
    }
    if (needsEscape(c) || isShaping(c)) {
      result += escapeOne(c);
      previousKept = false;
    } else {
      result += c;
      previousKept = true;
    }
    i += 1;
  }
  return result;
}
