"""Japanese follow-ups that build on the answer (the English ``stages.kinds`` tables), in our
own words, polite (です/ます) when spoken, keywords with a kana when typed (a query of kanji
alone reads as Chinese). ``F(spoken, back, typed, typed_back)`` as in ``de.kinds``.

Referring back is mostly done by leaving things unsaid: a follow-up fills the subject with
the zero reference ("脚本も彼が書いたんですか？"), the value just named is ``[v:が]``
("彼が", "彼女が") or, for a place or an institution, ``[v:で]`` ("そこで"); "その前" and
"その時" point at the answer before.
"""

from __future__ import annotations

from convkgyarn.languages.base import FollowUpForms as F

D = "{ですか|でしたか}"
IRU = "{いますか|いましたか}"
ARU = "{ありますか|ありましたか}"


def _also(spoken: str, back: str, typed: str, typed_back: str) -> F:
    return F((spoken,), (back,), (typed,), (typed_back,))


def _also_role(spoken: str, back: str, role: str) -> F:
    """Typed: "ルビッチはタイタニックの脚本も担当？"."""
    return _also(spoken, back, f"[a:は][S:の]{role}も担当？", f"[a:は]{role}も担当？")


# -- also: (property just asked, property asked about its value) ---------------------------
ALSO: dict[tuple[str, str], F] = {
    ("P57", "P58"): _also_role("[a:は][S:の]脚本も書きましたか？", "脚本も[v:が]書いたんですか？",
                               "脚本"),
    ("P57", "P162"): _also_role("[a:は][S:の]製作も手がけましたか？",
                                "製作も[v:が]手がけたんですか？", "製作"),
    ("P57", "P161"): _also("[a:は][S:に]出演もしましたか？", "[v]自身も出演していたんですか？",
                           "[a:は][S:に]出演もした？", "[a:は]出演もした？"),
    ("P58", "P57"): _also_role("[a:は][S:の]監督も務めましたか？", "監督も[v:が]務めたんですか？",
                               "監督"),
    ("P175", "P86"): _also_role("[a:は][S:の]作曲もしましたか？", "作曲も[v:が]したんですか？",
                                "作曲"),
    ("P175", "P676"): _also_role("[a:は][S:の]作詞もしましたか？", "作詞も[v:が]したんですか？",
                                 "作詞"),
    ("P86", "P676"): _also_role("[a:は][S:の]作詞も手がけましたか？",
                                "作詞も[v:が]手がけたんですか？", "作詞"),
    ("P86", "P175"): _also_role("[S:を]歌ったのも[a]ですか？", "歌ったのも[v]ですか？", "歌"),
    ("P50", "P110"): _also_role("[S:の]挿絵も[a:が]描きましたか？", "挿絵も[v:が]描いたんですか？",
                                "挿絵"),
    ("P112", "P169"): _also("[a:は][S:の]最高経営責任者でも{ありますか|ありましたか}？",
                            "[v:は]最高経営責任者でも{あるんですか|あったんですか}？",
                            "[a:は][S:の]CEOも{務めてる|務めた}？",
                            "[a:は]CEOも{務めてる|務めた}？"),
    ("P112", "P488"): _also("[a:は][S:の]代表も{務めていますか|務めましたか}？",
                            "[v:は]代表も{務めているんですか|務めたんですか}？",
                            "[a:は][S:の]代表も{務めてる|務めた}？",
                            "[a:は]代表も{務めてる|務めた}？"),
    ("P35", "P6"): _also("[a:は][S:の]政府の長も{兼ねていますか|兼ねていましたか}？",
                         "[v:は]政府の長も{兼ねているんですか|兼ねていたんですか}？",
                         "[a:は][S:の]政府の長も兼任？", "[a:は]政府の長も兼任？"),
    ("P6", "P35"): _also("[a:は][S:の]元首も{兼ねていますか|兼ねていましたか}？",
                         "[v:は]元首も{兼ねているんですか|兼ねていたんですか}？",
                         "[a:は][S:の]元首も兼任？", "[a:は]元首も兼任？"),
    # the value is a place or an institution: "そこ"
    ("P19", "P20"): _also("[S:が]亡くなったのも[a]ですか？", "[S:が]亡くなったのも[v]ですか？",
                          "[S] 亡くなったのも[a]？", "亡くなったのも[a]？"),
    ("P69", "P108"): _also("[S:は][a:で]働いたこともありますか？",
                           "[S:は][v:で]働いたこともありますか？",
                           "[S] [a:で]も勤務？", "[a:で]も勤務？"),
    ("P108", "P69"): _also("[S:は][a:で]学んだこともありますか？",
                           "[S:は][v:で]学んだこともありますか？",
                           "[S] [a:で]も学んだ？", "[a:で]も学んだ？"),
    ("P1411", "P166"): _also("[S:は]最終的に[a:を]受賞しましたか？", "[S:は]最終的に[v:を]受賞しましたか？",
                             "[S] [a] 受賞した？", "[a] 受賞した？"),
}
ALSO_BY_KIND: dict[tuple[tuple[str, str], str], F] = {
    (("P35", "P6"), "city"): _also("[a:は][S:の]市長も{兼ねていますか|兼ねていましたか}？",
                                   "[v:は]市長も{兼ねているんですか|兼ねていたんですか}？",
                                   "[a:は][S:の]市長も兼任？", "[a:は]市長も兼任？"),
}


# -- before: who held it before [a] ---------------------------------------------------------
def _before(spoken: str, back: tuple[str, ...], typed: str) -> F:
    """Typed: "[S] 政府の長 [a:の]前", and without the subject."""
    return F((spoken,), back, (f"[S] {typed}",), (typed,))


_BACK_OFFICE = ("[v:の]前は誰でしたか？", "その前は誰が務めていましたか？")
BEFORE: dict[str, F] = {
    "P6": _before("[a:の]前に[S:の]政府の長を務めたのは誰ですか？", _BACK_OFFICE,
                  "政府の長 [a:の]前"),
    "P35": _before("[a:の]前に[S:の]元首だったのは誰ですか？", _BACK_OFFICE, "元首 [a:の]前"),
    "P26": _before("[S:は][a:の]前に誰と結婚していましたか？",
                   ("[S:は][v:の]前は誰と結婚していましたか？",), "[a:の]前の配偶者"),
    "P54": _before("[S:は][a:の]前にどのチームでプレーしていましたか？",
                   ("[S:は]その前はどのチームにいましたか？",), "[a:の]前の所属チーム"),
    "P108": _before("[S:は][a:の]前にどこで働いていましたか？",
                    ("[S:は]その前はどこで働いていましたか？",), "[a:の]前の勤務先"),
    "P286": _before("[a:の]前に[S:の]監督を務めたのは誰ですか？",
                    ("[v:の]前の監督は誰でしたか？",), "監督 [a:の]前"),
    "P488": _before("[a:の]前に[S:の]トップだったのは誰ですか？",
                    ("[v:の]前は誰がトップでしたか？",), "トップ [a:の]前"),
    "P169": _before("[a:の]前に[S:の]CEOを務めたのは誰ですか？",
                    ("[v:の]前のCEOは誰でしたか？",), "CEO [a:の]前"),
    "P1037": _before("[a:の]前に[S:の]責任者を務めたのは誰ですか？",
                     ("[v:の]前の責任者は誰でしたか？",), "責任者 [a:の]前"),
}
BEFORE_BY_KIND: dict[tuple[str, str], F] = {
    ("P6", "city"): _before("[a:の]前に[S:の]市長を務めたのは誰ですか？", _BACK_OFFICE,
                            "市長 [a:の]前"),
    ("P488", "university"): _before("[a:の]前に[S:の]学長を務めたのは誰ですか？",
                                    ("[v:の]前の学長は誰でしたか？",), "学長 [a:の]前"),
}

# -- spans: "何年間" (never "何年", which asks for a year), answered with the bare number ----
def _span(spoken: str, back: tuple[str, ...], typed: str) -> F:
    """Typed: "[S] [a:の]在任期間", and without the subject."""
    return F((spoken,), back, (f"[S] {typed}",), (typed,))


_OFFICE_BACK = ("じゃあ、[v:は]何年間在任したんですか？",)
SPANS: dict[object, F] = {
    # after the question about the death: "その時" is the date just named
    "age": _span("[S:は]何歳で亡くなりましたか？",
                 ("[S:は]その時何歳でしたか？", "じゃあ、[S:は]何歳で亡くなったんですか？"),
                 "亡くなった年齢"),
    "existence": _span("[S:は]何年間存続しましたか？", ("じゃあ、[S:は]何年間存続したんですか？",),
                       "存続した年数"),
    ("term", "P6"): _span("[a:は]何年間[S:の]政府の長を務めましたか？", _OFFICE_BACK,
                          "[a:の]在任期間"),
    ("term", "P35"): _span("[a:は]何年間[S:の]元首を務めましたか？", _OFFICE_BACK,
                           "[a:の]在任期間"),
    ("term", "P39"): _span("[S:は]何年間[a:を]務めましたか？",
                           ("[S:は]その職を何年間務めましたか？",), "[a:の]在任期間"),
    ("term", "P26"): _span("[S:は][a:と]何年間結婚していましたか？",
                           ("二人は何年間結婚していましたか？",), "[a:との]結婚期間"),
    ("term", "P54"): _span("[S:は][a:で]何年間プレーしましたか？",
                           ("[S:は][v:で]何年間プレーしましたか？",), "[a:での]在籍期間"),
    ("term", "P108"): _span("[S:は][a:で]何年間働きましたか？",
                            ("[S:は][v:で]何年間働きましたか？",), "[a:での]勤務期間"),
    ("term", "P69"): _span("[S:は][a:で]何年間学びましたか？",
                           ("[S:は][v:で]何年間学びましたか？",), "[a:での]在学期間"),
    ("term", "P488"): _span("[a:は]何年間[S:を]率いましたか？",
                            ("じゃあ、[v:は]何年間トップを務めたんですか？",), "[a:の]在任期間"),
}
SPANS_BY_KIND: dict[tuple[object, str], F] = {
    (("term", "P6"), "city"): _span("[a:は]何年間[S:の]市長を務めましたか？", _OFFICE_BACK,
                                    "[a:の]在任期間"),
}


# -- count: how many ------------------------------------------------------------------------
def _count(question: str, noun: str) -> F:
    """Typed: "[S] 子供の人数", and "子供の人数は？" about the subject of the talk."""
    return F((question,), typed=(f"[S] {noun}",), typed_back=(f"[S:の]{noun}は？",))


COUNT: dict[str, F] = {
    "P40": _count(f"[S:には]子供が何人{IRU}？", "子供の人数"),
    "P3373": _count(f"[S:には]きょうだいが何人{IRU}？", "きょうだいの人数"),
    "P26": _count("[S:は]これまでに何回結婚{していますか|しましたか}？", "結婚した回数"),
    "P166": _count("[S:は]賞をいくつ{受賞していますか|受賞しましたか}？", "受賞した賞の数"),
    "P1411": _count("[S:は]何回ノミネート{されていますか|されましたか}？", "ノミネートの回数"),
    "P800": _count(f"[S:の]代表作はいくつ{ARU}？", "代表作の数"),
    "P1412": _count("[S:は]何か国語を話{しますか|しましたか}？", "話せる言語の数"),
    "P161": _count("[S:には]何人の俳優が出演{していますか|していましたか}？", "出演者の人数"),
    "P37": _count(f"[S:には]公用語がいくつ{ARU}？", "公用語の数"),
    "P47": _count(f"[S:に]隣接する地域はいくつ{ARU}？", "隣接する地域の数"),
}
COUNT_BY_KIND: dict[tuple[str, str], F] = {
    ("P47", "country"): _count(f"[S:は]いくつの国と国境を接して{IRU}？", "隣国の数"),
    ("P47", "city"): _count(f"[S:に]隣接する自治体はいくつ{ARU}？", "隣接する自治体の数"),
}

# -- the list after its count; spoken only, as in English -----------------------------------
_NAME_THEM = "挙げてもらえますか？"
LIST: dict[str, F] = {
    "P40": F((f"子供たちの名前は何{D}？", f"それぞれ誰{D}？")),
    "P3373": F((f"きょうだいの名前は何{D}？", f"それぞれ誰{D}？")),
    "P26": F(("結婚相手はそれぞれ誰でしたか？", "名前を挙げてもらえますか？")),
    "P166": F((f"どんな賞{D}？", _NAME_THEM)),
    "P1411": F((_NAME_THEM, f"何という賞{D}？")),
    "P800": F((_NAME_THEM, f"何という作品{D}？")),
    "P1412": F((f"何語{D}？", _NAME_THEM)),
    "P37": F((f"何語{D}？", _NAME_THEM)),
    "P47": F((_NAME_THEM, f"どこ{D}？")),
}

# -- the second of a pair, about the event just named ---------------------------------------
PAIR: dict[tuple[str, str], F] = {
    ("P19", "P569"): F(("それはどこでしたか？", "場所はどこですか？")),
    ("P20", "P570"): F(("それはどこでしたか？", "どこで亡くなったんですか？")),
    ("P569", "P19"): F(("それはいつでしたか？", "いつのことですか？")),
    ("P570", "P20"): F(("それはいつでしたか？", "いつのことですか？")),
}

# -- where in the country just named ([a], always named) ------------------------------------
WHERE_IN: dict[tuple[str, str], F] = {
    (narrow, "P17"): F((f"[S:は][a:の]どの地方に{ARU}？", f"[S:は][a:の]どのあたりに{ARU}？"))
    for narrow in ("P131", "P276")
}


# -- verify: is [a] (true or a plausible false candidate) the value? -----------------------
_verify = F.one_each


VERIFY: dict[str, F] = {
    "P26": _verify(f"[S:は][a:と]結婚して{IRU}？", "[S] 配偶者は[a]？", "配偶者は[a]？"),
    "P19": _verify("[S:は][a:で]生まれましたか？", "[S] [a]生まれ？", "[a]生まれ？"),
    "P20": _verify("[S:は][a:で]亡くなりましたか？", "[S] [a:で]死去？", "[a:で]死去？"),
    "P27": _verify("[S:は][a:の]国籍を{持っていますか|持っていましたか}？", "[S] 国籍は[a]？",
                   "国籍は[a]？"),
    "P22": _verify(f"[a:は][S:の]父親{D}？", "[a:は][S:の]父親？", "父親は[a]？"),
    "P25": _verify(f"[a:は][S:の]母親{D}？", "[a:は][S:の]母親？", "母親は[a]？"),
    "P40": _verify(f"[a:は][S:の]子供{D}？", "[a:は][S:の]子供？", "[a:は]子供の一人？"),
    "P69": _verify("[S:は][a:で]学びましたか？", "[S] [a:の]出身？", "[a:の]出身？"),
    "P166": _verify("[S:は][a:を]受賞しましたか？", "[S] [a]受賞？", "[a]受賞？"),
    "P102": _verify(f"[S:は][a:の]党員{D}？", "[S] [a:の]党員？", "[a:の]党員？"),
    "P57": _verify("[S:を]監督したのは[a]ですか？", "[S] 監督は[a]？", "監督は[a]？"),
    "P50": _verify("[S:を]書いたのは[a]ですか？", "[S] 著者は[a]？", "著者は[a]？"),
    "P161": _verify("[a:は][S:に]出演していますか？", "[S] [a:が]出演？", "[a:は]出演してる？"),
    "P36": _verify(f"[S:の]首都は[a]{D}？", "[S:の]首都は[a]？", "首都は[a]？"),
    "P38": _verify(f"[S:の]通貨は[a]{D}？", "[S:の]通貨は[a]？", "通貨は[a]？"),
    "P30": _verify(f"[S:は][a:に]{ARU}？", "[S:は][a:に]ある？", "[a:に]ある？"),
    "P17": _verify(f"[S:は][a:に]{ARU}？", "[S:は][a:に]ある？", "[a:に]ある？"),
    "P495": _verify(f"[S:は][a:の]作品{D}？", "[S] [a:の]作品？", "[a:の]作品？"),
}

TABLES = {"also": ALSO, "before": BEFORE, "span": SPANS, "count": COUNT, "list": LIST,
          "pair": PAIR, "where_in": WHERE_IN, "verify": VERIFY}
BY_KIND = {"also": ALSO_BY_KIND, "before": BEFORE_BY_KIND, "span": SPANS_BY_KIND,
           "count": COUNT_BY_KIND}
