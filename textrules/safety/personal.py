"""Personal data, China first: resident ID numbers (GB 11643, with its check digit, and the
old 15-digit form), mobile numbers, bank card numbers (Luhn, known card prefixes), e-mail
addresses, passport numbers. Separators inside a number (spaces, dashes, dots) do not hide it.
Each is masked so that only its last four characters (an e-mail's first
letter and domain) remain: enough to tell two apart, not enough to reach the person."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"
# Digits must not continue on either side: a longer number (an ad id, a timestamp) is not one of these.
_EDGE_L = r"(?<![0-9A-Za-z])"
_EDGE_R = r"(?![0-9A-Za-z])"
_ID18 = re.compile(_EDGE_L + r"([1-8]\d{5})((?:18|19|20)\d{2})(\d{2})(\d{2})(\d{3})([0-9Xx])" + _EDGE_R)
# Separators people put inside a number they read out or copy from a form: spaces, dashes,
# dots, middle dots. One between any two digits; the check digit keeps false hits rare.
_SEP = r"[\s\-.·]"
_ID18_SPACED = re.compile(_EDGE_L + r"[1-8](?:" + _SEP + r"?\d){16}" + _SEP + r"?[0-9Xx]" + _EDGE_R)
_ID15 = re.compile(_EDGE_L + r"([1-8]\d{5})(\d{2})(\d{2})(\d{2})(\d{3})" + _EDGE_R)
_PHONE = re.compile(
    r"(?<![0-9A-Za-z+.])(?:(?:\+|00)?86[\s\-.]?)?(?:\(?(1[3-9]\d)\)?[\s\-.·]?(\d{4})[\s\-.·]?(\d{4})"
    r"|(1[3-9]\d\d)[\s\-.·](\d{3})[\s\-.·](\d{4}))(?![0-9A-Za-z]|\.\d)"
)
# Passports: China's (E/G + 8 digits, E + a letter + 7 digits) anywhere; any other
# country's 6-9 letters and digits only right after the word.
_PASSPORT_CN = re.compile(_EDGE_L + r"(?:[EG]\d{8}|E[A-HJ-NP-Z]\d{7})" + _EDGE_R)
_PASSPORT_NAMED = re.compile(r"(?i)(?:护照|passport)(?:号码|号|\s*(?:no\.?|number|#))?\s*(?:[:：=]|是|为)?\s*([A-Z0-9]{6,9})" + _EDGE_R)
_CARD = re.compile(_EDGE_L + r"(\d{4}(?:[\s\-]?\d{4}){2}[\s\-]?\d{4,7})" + _EDGE_R)
# Issuer prefixes of cards used in China: UnionPay 62/81, Visa 4, Mastercard 51-55 and 2221-2720,
# JCB 35, Amex 34/37, Discover 60/65. An id that merely passes Luhn rarely starts like one.
_CARD_PREFIX = re.compile(r"^(?:62|81|4|5[1-5]|2[2-7]|35|3[47]|60|65)")
_EMAIL = re.compile(r"(?<![A-Za-z0-9._%+\-])([A-Za-z0-9._%+\-]+)@([A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,})")


class PersonalKind:
    ID_CARD = "id_card"
    PHONE = "phone"
    BANK_CARD = "bank_card"
    EMAIL = "email"
    PASSPORT = "passport"


@dataclass(frozen=True)
class PersonalFinding:
    kind: str
    start: int
    end: int
    mask: str


def _valid_date(year: int, month: int, day: int) -> bool:
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True


def id18_valid(number: str) -> bool:
    """The GB 11643 check digit (ISO 7064 MOD 11-2) and a real birth date."""
    if len(number) != 18 or not number[:17].isdigit():
        return False
    total = sum(int(d) * w for d, w in zip(number[:17], _ID_WEIGHTS, strict=True))
    if _ID_CHECK[total % 11] != number[17].upper():
        return False
    return _valid_date(int(number[6:10]), int(number[10:12]), int(number[12:14]))


def luhn_valid(digits: str) -> bool:
    total = 0
    for i, d in enumerate(reversed(digits)):
        n = int(d)
        if i % 2 == 1:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def _tail(value: str) -> str:
    return "".join(c for c in value if c.isalnum())[-4:]


def find_personal(text: str) -> list[PersonalFinding]:
    """Non-overlapping findings, the most specific rule first (an ID number is also 18 digits
    that might pass Luhn)."""
    found: list[PersonalFinding] = []
    taken = bytearray(len(text))

    def add(kind: str, start: int, end: int, mask: str) -> None:
        if any(taken[start:end]):
            return
        taken[start:end] = b"\x01" * (end - start)
        found.append(PersonalFinding(kind, start, end, mask))

    for m in _ID18.finditer(text):
        if id18_valid(m.group(0)):
            add(PersonalKind.ID_CARD, m.start(), m.end(), f"[身份证号 ****{_tail(m.group(0))}]")
    for m in _ID18_SPACED.finditer(text):
        digits = re.sub(r"[^0-9Xx]", "", m.group(0))
        if id18_valid(digits):
            add(PersonalKind.ID_CARD, m.start(), m.end(), f"[身份证号 ****{digits[-4:]}]")
    for m in _ID15.finditer(text):
        if _valid_date(1900 + int(m.group(2)), int(m.group(3)), int(m.group(4))):
            add(PersonalKind.ID_CARD, m.start(), m.end(), f"[身份证号 ****{_tail(m.group(0))}]")
    for m in _CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group(1))
        if 16 <= len(digits) <= 19 and _CARD_PREFIX.match(digits) and luhn_valid(digits):
            add(PersonalKind.BANK_CARD, m.start(), m.end(), f"[银行卡 ****{digits[-4:]}]")
    for m in _PHONE.finditer(text):
        add(PersonalKind.PHONE, m.start(), m.end(), f"[手机号 ****{m.group(3) or m.group(6)}]")
    for m in _PASSPORT_CN.finditer(text):
        add(PersonalKind.PASSPORT, m.start(), m.end(), f"[护照 ****{m.group(0)[-4:]}]")
    for m in _PASSPORT_NAMED.finditer(text):
        if any(c.isdigit() for c in m.group(1)):
            add(PersonalKind.PASSPORT, m.start(1), m.end(1), f"[护照 ****{m.group(1)[-4:]}]")
    for m in _EMAIL.finditer(text):
        add(PersonalKind.EMAIL, m.start(), m.end(), f"[邮箱 {m.group(1)[0]}***@{m.group(2)}]")
    return sorted(found, key=lambda f: f.start)
