"""Chinese follow-ups that build on the answer, filled for real subjects and values: the
value referred back to as 他/她 or 那里, 那时 and 那之前 for the answer before, yes/no
questions asked with 是 so that 是的/不是 answer them."""

from __future__ import annotations

from convkgyarn.languages import Subject, language

zh = language("zh")
MALE, FEMALE = "Q6581097", "Q6581072"
CHINA = Subject("中华人民共和国", kind="country", type_label="sovereign state")
BRAZIL = Subject("巴西", kind="country", type_label="sovereign state")
SWITZERLAND = Subject("瑞士", kind="country", type_label="sovereign state")
UK = Subject("英国", kind="country", type_label="sovereign state")
UAE = Subject("阿拉伯联合酋长国", kind="country", type_label="sovereign state")
SOVIET_UNION = Subject("苏联", kind="country", type_label="historical country")
LONDON = Subject("伦敦", kind="city", type_label="city")
BONN = Subject("波恩", kind="city", type_label="city")
CLUNY_BROWN = Subject("克魯尼·布朗", kind="film", type_label="film")
LEGIA = Subject("华沙莱吉亚足球俱乐部", kind="other")
BEETHOVEN = Subject("贝多芬", True, MALE, "person")
MERYL = Subject("梅丽尔·斯特里普", True, FEMALE, "person")
MICHAEL = Subject("迈克尔·杰克逊", True, MALE, "person")
ANDROS = Subject("安祖斯·唐辛", True, MALE, "person")
XI = Subject("习近平", True, MALE, "person")
BOLSONARO = Subject("雅伊尔·博索纳罗", True, MALE, "person")
ROUSSEFF = Subject("迪尔玛·罗塞夫", True, FEMALE, "person")
LUBITSCH = Subject("恩斯特·刘别谦", True, MALE, "person")
GUMMER = Subject("唐·古默", True, MALE, "person")
DEBBIE_ROWE = Subject("黛比·罗", True)  # no gender: named


def ask(kind, key, subject, reference=None, value=None, *, tense="present", back=False,
        interaction="voice", i=0):
    forms = zh.follow_ups(kind, key, interaction, tense, back, subject.kind)
    return zh.fill(forms[i], subject, reference, value).text


def test_before_and_the_holder_referred_back_to():
    assert ask("before", "P35", CHINA, None, XI) == "在习近平之前，谁是中华人民共和国的国家元首？"
    assert ask("before", "P35", CHINA, "noun", XI) == "在习近平之前，谁是这个国家的国家元首？"
    assert ask("before", "P35", CHINA, "noun", XI, back=True) == "那在他之前呢？"
    assert ask("before", "P35", CHINA, "noun", XI, back=True, i=1) == "他的前任是谁？"
    assert ask("before", "P26", MICHAEL, "pronoun", DEBBIE_ROWE, back=True) == \
        "在黛比·罗之前，他和谁结过婚？"
    assert ask("before", "P54", ANDROS, "pronoun", LEGIA, back=True) == "在那之前他效力于哪支球队？"
    assert ask("before", "P35", CHINA, None, XI, interaction="text") == \
        "中华人民共和国国家元首习近平的前任"


def test_also_refers_back_to_the_value():
    assert ask("also", ("P35", "P6"), BRAZIL, None, ROUSSEFF) == \
        "迪尔玛·罗塞夫也是巴西的政府首脑吗？"
    assert ask("also", ("P35", "P6"), BRAZIL, "noun", BOLSONARO, back=True) == "他也是政府首脑吗？"
    assert ask("also", ("P35", "P6"), BRAZIL, "noun", ROUSSEFF, back=True, tense="past") == \
        "她也曾是政府首脑吗？"
    assert ask("also", ("P57", "P58"), CLUNY_BROWN, "noun", LUBITSCH, back=True) == \
        "剧本也是他写的吗？"
    assert ask("also", ("P19", "P20"), BEETHOVEN, None, BONN) == "贝多芬也是在波恩去世的吗？"
    assert ask("also", ("P19", "P20"), BEETHOVEN, "pronoun", BONN, back=True) == \
        "他也是在那里去世的吗？"
    assert ask("also", ("P19", "P20"), BEETHOVEN, "zero", BONN, back=True) == "也是在那里去世的吗？"


def test_spans_ask_how_many_years_never_which_year():
    assert ask("span", "age", BEETHOVEN) == "贝多芬去世时多少岁？"
    assert ask("span", "age", BEETHOVEN, "pronoun", back=True) == "他那时多少岁？"
    assert ask("span", "existence", SOVIET_UNION, "noun", back=True) == \
        "那这个国家一共存在了多少年？"
    assert ask("span", ("term", "P54"), ANDROS, "pronoun", LEGIA, back=True) == \
        "他在那里效力了多少年？"
    assert ask("span", ("term", "P26"), MERYL, None, GUMMER) == \
        "梅丽尔·斯特里普和唐·古默的婚姻维持了多少年？"
    assert not zh.asks_year(ask("span", "existence", SOVIET_UNION))


def test_counts_lists_pairs_and_where_in():
    assert ask("count", "P37", SWITZERLAND) == "瑞士有几种官方语言？"
    assert ask("count", "P47", SWITZERLAND) == "瑞士与几个国家接壤？"
    assert ask("count", "P37", SWITZERLAND, interaction="text") == "瑞士官方语言数量"
    assert ask("count", "P40", MICHAEL, "pronoun", back=True, interaction="text") == \
        "那他的子女数量呢"
    assert ask("count", "P1412", MICHAEL, "pronoun", back=True, interaction="text") == \
        "那他会几种语言呢"
    assert ask("list", "P37", SWITZERLAND) == "是哪几种语言？"
    assert ask("pair", ("P19", "P569"), BEETHOVEN) == "那是在哪里？"
    assert ask("where_in", ("P131", "P17"), LONDON, None, UK) == "伦敦位于英国的哪个地区？"
    assert ask("where_in", ("P131", "P17"), LONDON, "noun", UK, i=1) == "这座城市在英国的什么地方？"


def test_verify():
    assert ask("verify", "P26", MERYL, None, GUMMER) == "梅丽尔·斯特里普的配偶是唐·古默吗？"
    assert ask("verify", "P26", MERYL, "pronoun", GUMMER, tense="past") == \
        "她是不是和唐·古默结过婚？"
    assert ask("verify", "P36", UAE, None, Subject("巴马科", kind="city")) == \
        "阿拉伯联合酋长国的首都是巴马科吗？"
    assert ask("verify", "P19", BEETHOVEN, None, BONN, interaction="text") == \
        "贝多芬是在波恩出生的吗"


def test_yes_no():
    assert (zh.yes_no(True), zh.yes_no(False)) == ("是的", "不是")
