"""Chinese follow-ups that build on the answer (the English ``stages.kinds`` tables), in our
own words (Simplified, no spaces). ``F(spoken, back, typed, typed_back)`` as in
``de.kinds``.

Every yes/no form asks with 是 (是…吗, 是…的吗, 是不是…), so that "是的"/"不是"
(``yes_no``) answers each as a speaker would. ``[v]`` is the value the turn before named:
他/她 for a person, 那里 for a place or an institution (only after 在).
"""

from __future__ import annotations

from convkgyarn.languages.base import FollowUpForms as F

IS = "{是|曾是}"


def _also(spoken: str, back: str, typed: str, typed_back: str) -> F:
    return F((spoken,), (back,), (typed,), (typed_back,))


def _also_role(spoken: str, back: str, role: str) -> F:
    """Typed: "刘别谦也是泰坦尼克号编剧吗"."""
    return _also(spoken, back, f"[a]也是[S]{role}吗", f"[a]也是{role}吗")


# -- also: (property just asked, property asked about its value) ---------------------------
ALSO: dict[tuple[str, str], F] = {
    ("P57", "P58"): _also_role("[a]也是[S的]编剧吗？", "剧本也是[v]写的吗？", "编剧"),
    ("P57", "P162"): _also_role("[a]也是[S的]制片人吗？", "[v]也是制片人吗？", "制片人"),
    ("P57", "P161"): _also_role("[a]也是[S的]演员之一吗？", "[v]自己也是演员之一吗？", "演员"),
    ("P58", "P57"): _also_role("[a]也是[S的]导演吗？", "也是[v]执导的吗？", "导演"),
    ("P175", "P86"): _also_role("[a]也是[S的]作曲者吗？", "曲子也是[v]写的吗？", "作曲者"),
    ("P175", "P676"): _also_role("[a]也是[S的]作词者吗？", "词也是[v]写的吗？", "作词者"),
    ("P86", "P676"): _also_role("[a]也是[S的]作词者吗？", "词也是[v]写的吗？", "作词者"),
    ("P86", "P175"): _also_role("[S]也是[a]演唱的吗？", "也是[v]自己唱的吗？", "演唱者"),
    ("P50", "P110"): _also_role("[S的]插图也是[a]画的吗？", "插图也是[v]画的吗？", "插画师"),
    ("P112", "P169"): _also(f"[a]也{IS}[S的]首席执行官吗？", f"[v]也{IS}首席执行官吗？",
                            "[a]也是[S]CEO吗", "[a]也是CEO吗"),
    ("P112", "P488"): _also(f"[a]也{IS}[S的]主席吗？", f"[v]也{IS}主席吗？",
                            "[a]也是[S]主席吗", "[a]也是主席吗"),
    ("P35", "P6"): _also(f"[a]也{IS}[S的]政府首脑吗？", f"[v]也{IS}政府首脑吗？",
                         "[a]也是[S]政府首脑吗", "[a]也是政府首脑吗"),
    ("P6", "P35"): _also(f"[a]也{IS}[S的]国家元首吗？", f"[v]也{IS}国家元首吗？",
                         "[a]也是[S]国家元首吗", "[a]也是国家元首吗"),
    # the value is a place or an institution: "那里"
    ("P19", "P20"): _also("[S]也是在[a]去世的吗？", "[S]也是在[v]去世的吗？",
                          "[S]也是在[a]去世的吗", "也是在[a]去世的吗"),
    ("P69", "P108"): _also("[S]是不是也在[a]工作过？", "[S]是不是也在[v]工作过？",
                           "[S]是不是也在[a]工作过", "是不是也在[a]工作过"),
    ("P108", "P69"): _also("[S]是不是也在[a]上过学？", "[S]是不是也在[v]上过学？",
                           "[S]是不是也在[a]上过学", "是不是也在[a]上过学"),
    ("P1411", "P166"): _also("[S]最终是不是获得了[a]？", "[S]最终是不是获得了[v]？",
                             "[S]是不是获得了[a]", "是不是获得了[a]"),
}
ALSO_BY_KIND: dict[tuple[tuple[str, str], str], F] = {
    (("P35", "P6"), "city"): _also(f"[a]也{IS}[S的]市长吗？", f"[v]也{IS}市长吗？",
                                   "[a]也是[S]市长吗", "[a]也是市长吗"),
}


# -- before: who held it before [a] ---------------------------------------------------------
def _before(spoken: str, back: tuple[str, ...], typed: str) -> F:
    """Typed: "德国政府首脑奥拉夫·朔尔茨的前任", and without the subject."""
    return F((spoken,), back, (f"[S]{typed}",), (typed,))


_BACK_OFFICE = ("那在[v]之前呢？", "[v]的前任是谁？")
BEFORE: dict[str, F] = {
    "P6": _before("在[a]之前，谁是[S的]政府首脑？", _BACK_OFFICE, "政府首脑[a]的前任"),
    "P35": _before("在[a]之前，谁是[S的]国家元首？", _BACK_OFFICE, "国家元首[a]的前任"),
    "P26": _before("在[a]之前，[S]和谁结过婚？", ("在[v]之前，[S]和谁结过婚？",),
                   "在[a]之前的配偶"),
    "P54": _before("在[a]之前，[S]效力于哪支球队？", ("在那之前[S]效力于哪支球队？",),
                   "在[a]之前效力的球队"),
    "P108": _before("在[a]之前，[S]在哪里工作？", ("在那之前[S]在哪里工作？",), "在[a]之前的雇主"),
    "P286": _before("在[a]之前，谁是[S的]主教练？", ("[v]的前任主教练是谁？",), "主教练[a]的前任"),
    "P488": _before("在[a]之前，谁是[S的]主席？", ("[v]的前任主席是谁？",), "主席[a]的前任"),
    "P169": _before("在[a]之前，谁是[S的]首席执行官？", ("[v]的前任是谁？",), "CEO[a]的前任"),
    "P1037": _before("在[a]之前，谁是[S的]负责人？", ("[v]的前任是谁？",), "负责人[a]的前任"),
}
BEFORE_BY_KIND: dict[tuple[str, str], F] = {
    ("P6", "city"): _before("在[a]之前，谁是[S的]市长？", _BACK_OFFICE, "市长[a]的前任"),
    ("P488", "university"): _before("在[a]之前，谁是[S的]校长？", ("[v]的前任校长是谁？",),
                                    "校长[a]的前任"),
}


# -- spans: "多少年", "多少岁" (never "哪一年"), answered with the bare number ---------------
def _span(spoken: str, back: tuple[str, ...], typed: str) -> F:
    """Typed: "[S][a]在任年数", and without the subject."""
    return F((spoken,), back, (f"[S]{typed}",), (typed,))


_OFFICE_BACK = ("那[v]一共在任多少年？",)
SPANS: dict[object, F] = {
    # after the question about the death: "那时" is the date just named
    "age": _span("[S]去世时多少岁？", ("[S]那时多少岁？", "那[S]去世时多少岁？"), "去世时年龄"),
    "existence": _span("[S]存在了多少年？", ("那[S]一共存在了多少年？",), "存续时间"),
    ("term", "P6"): _span("[a]担任了多少年[S的]政府首脑？", _OFFICE_BACK, "[a]在任年数"),
    ("term", "P35"): _span("[a]担任了多少年[S的]国家元首？", _OFFICE_BACK, "[a]在任年数"),
    ("term", "P39"): _span("[S]担任了多少年[a]？", ("[S]在这个职位上干了多少年？",),
                           "担任[a]年数"),
    ("term", "P26"): _span("[S]和[a]的婚姻维持了多少年？", ("他们的婚姻维持了多少年？",),
                           "与[a]婚姻年数"),
    ("term", "P54"): _span("[S]在[a]效力了多少年？", ("[S]在[v]效力了多少年？",),
                           "效力[a]年数"),
    ("term", "P108"): _span("[S]在[a]工作了多少年？", ("[S]在[v]工作了多少年？",),
                            "在[a]工作年数"),
    ("term", "P69"): _span("[S]在[a]学习了多少年？", ("[S]在[v]学习了多少年？",),
                           "在[a]就读年数"),
    ("term", "P488"): _span("[a]领导了[S]多少年？", ("那[v]一共领导了多少年？",), "[a]任职年数"),
}
SPANS_BY_KIND: dict[tuple[object, str], F] = {
    (("term", "P6"), "city"): _span("[a]担任了多少年[S的]市长？", _OFFICE_BACK, "[a]在任年数"),
}


# -- count: how many ------------------------------------------------------------------------
def _count(question: str, noun: str, typed: str | None = None) -> F:
    """Typed: "[S]子女数量", and "那[S的]子女数量呢" about the subject of the talk (or a
    typed question: "[S]会几种语言", "那[S]会几种语言呢")."""
    if typed:
        return F((question,), typed=(f"[S]{typed}",), typed_back=(f"那[S]{typed}呢",))
    return F((question,), typed=(f"[S]{noun}",), typed_back=(f"那[S的]{noun}呢",))


COUNT: dict[str, F] = {
    "P40": _count("[S]{有|有过}几个孩子？", "子女数量"),
    "P3373": _count("[S]有几个兄弟姐妹？", "兄弟姐妹数量"),
    "P26": _count("[S]结过几次婚？", "结婚次数"),
    "P166": _count("[S]获得过多少个奖项？", "获奖数量"),
    "P1411": _count("[S]获得过多少次提名？", "提名次数"),
    "P800": _count("[S]有多少部代表作？", "代表作数量"),
    "P1412": _count("[S]会说几种语言？", "", typed="会几种语言"),
    "P161": _count("[S]有多少位演员参演？", "演员人数"),
    "P37": _count("[S]{有|曾有}几种官方语言？", "官方语言数量"),
    "P47": _count("[S]{与|曾与}多少个地区相邻？", "相邻地区数量"),
}
COUNT_BY_KIND: dict[tuple[str, str], F] = {
    ("P47", "country"): _count("[S]{与|曾与}几个国家接壤？", "邻国数量"),
    ("P47", "city"): _count("[S]{与|曾与}多少个地方相邻？", "相邻地方数量"),
}

# -- the list after its count; spoken only, as in English -----------------------------------
_NAME_THEM = "能列举一下吗？"
LIST: dict[str, F] = {
    "P40": F(("他们叫什么名字？", "分别是谁？")),
    "P3373": F(("他们叫什么名字？", "分别是谁？")),
    "P26": F(("分别是谁？", "能说说都是谁吗？")),
    "P166": F(("分别是哪些奖？", _NAME_THEM)),
    "P1411": F((_NAME_THEM, "都是哪些提名？")),
    "P800": F((_NAME_THEM, "都叫什么？")),
    "P1412": F(("是哪几种语言？", _NAME_THEM)),
    "P37": F(("是哪几种语言？", _NAME_THEM)),
    "P47": F((_NAME_THEM, "分别是哪些？")),
}

# -- the second of a pair, about the event just named ---------------------------------------
PAIR: dict[tuple[str, str], F] = {
    ("P19", "P569"): F(("那是在哪里？", "在哪里出生的？")),
    ("P20", "P570"): F(("那是在哪里？", "在哪里去世的？")),
    ("P569", "P19"): F(("那是什么时候？", "是什么时候的事？")),
    ("P570", "P20"): F(("那是什么时候？", "是什么时候的事？")),
}

# -- where in the country just named ([a], always named) ------------------------------------
WHERE_IN: dict[tuple[str, str], F] = {
    (narrow, "P17"): F(("[S]{位于|当时位于}[a]的哪个地区？", "[S]{在|当时在}[a]的什么地方？"))
    for narrow in ("P131", "P276")
}


# -- verify: is [a] (true or a plausible false candidate) the value? -----------------------
_verify = F.one_each


VERIFY: dict[str, F] = {
    "P26": _verify("{[S的]配偶是[a]吗|[S]是不是和[a]结过婚}？", "[S]配偶是[a]吗", "配偶是[a]吗"),
    "P19": _verify("[S]是在[a]出生的吗？", "[S]是在[a]出生的吗", "是在[a]出生的吗"),
    "P20": _verify("[S]是在[a]去世的吗？", "[S]是在[a]去世的吗", "是在[a]去世的吗"),
    "P27": _verify(f"[S]{IS}[a]公民吗？", "[S]是[a]国籍吗", "是[a]国籍吗"),
    "P22": _verify("[a]是[S的]父亲吗？", "[a]是[S]父亲吗", "父亲是[a]吗"),
    "P25": _verify("[a]是[S的]母亲吗？", "[a]是[S]母亲吗", "母亲是[a]吗"),
    "P40": _verify("[a]是[S的]孩子吗？", "[a]是[S]的孩子吗", "[a]是孩子之一吗"),
    "P69": _verify("[S]是不是在[a]上过学？", "[S]是不是[a]毕业的", "是不是[a]毕业的"),
    "P166": _verify("[S]是不是获得过[a]？", "[S]是不是获得过[a]", "是不是获得过[a]"),
    "P102": _verify(f"[S]{IS}[a]的成员吗？", "[S]是[a]成员吗", "是[a]成员吗"),
    "P57": _verify("[S]是[a]执导的吗？", "[S]导演是[a]吗", "导演是[a]吗"),
    "P50": _verify("[S]是[a]写的吗？", "[S]作者是[a]吗", "作者是[a]吗"),
    "P161": _verify("[a]是不是参演了[S]？", "[a]是不是[S]演员", "[a]是不是演员之一"),
    "P36": _verify(f"[S的]首都{IS}[a]吗？", "[S]首都是[a]吗", "首都是[a]吗"),
    "P38": _verify(f"[S的]货币{IS}[a]吗？", "[S]货币是[a]吗", "货币是[a]吗"),
    "P30": _verify("[S]{是|当时是}在[a]吗？", "[S]是在[a]吗", "是在[a]吗"),
    "P17": _verify("[S]{是|当时是}在[a]吗？", "[S]是在[a]吗", "是在[a]吗"),
    "P495": _verify("[S]是[a]的作品吗？", "[S]是[a]作品吗", "是[a]作品吗"),
}

TABLES = {"also": ALSO, "before": BEFORE, "span": SPANS, "count": COUNT, "list": LIST,
          "pair": PAIR, "where_in": WHERE_IN, "verify": VERIFY}
BY_KIND = {"also": ALSO_BY_KIND, "before": BEFORE_BY_KIND, "span": SPANS_BY_KIND,
           "count": COUNT_BY_KIND}
