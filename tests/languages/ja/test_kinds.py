"""Japanese follow-ups that build on the answer, filled for real subjects and values: the
subject left unsaid in a follow-up, the value referred back to as 彼/彼女 or そこ, "その前"
and "その時" for the answer before, particles after every name."""

from __future__ import annotations

from convkgyarn.languages import Subject, language

ja = language("ja")
MALE, FEMALE = "Q6581097", "Q6581072"
CHINA = Subject("中華人民共和国", kind="country", type_label="sovereign state")
BRAZIL = Subject("ブラジル", kind="country", type_label="sovereign state")
SWITZERLAND = Subject("スイス", kind="country", type_label="sovereign state")
UK = Subject("イギリス", kind="country", type_label="sovereign state")
UAE = Subject("アラブ首長国連邦", kind="country", type_label="sovereign state")
SOVIET_UNION = Subject("ソビエト連邦", kind="country", type_label="historical country")
LONDON = Subject("ロンドン", kind="city", type_label="city")
BONN = Subject("ボン", kind="city", type_label="city")
CLUNY_BROWN = Subject("クリュニー・ブラウン", kind="film", type_label="film")
LEGIA = Subject("レギア・ワルシャワ", kind="other")
BEETHOVEN = Subject("ベートーヴェン", True, MALE, "person")
MERYL = Subject("メリル・ストリープ", True, FEMALE, "person")
MICHAEL = Subject("マイケル・ジャクソン", True, MALE, "person")
ANDROS = Subject("アンドロス・タウンゼント", True, MALE, "person")
XI = Subject("習近平", True, MALE, "person")
BOLSONARO = Subject("ジャイール・ボルソナーロ", True, MALE, "person")
ROUSSEFF = Subject("ジルマ・ルセフ", True, FEMALE, "person")
LUBITSCH = Subject("エルンスト・ルビッチ", True, MALE, "person")
GUMMER = Subject("ドン・ガマー", True, MALE, "person")
DEBBIE_ROWE = Subject("デビー・ロウ", True)  # no gender: named


def ask(kind, key, subject, reference=None, value=None, *, tense="present", back=False,
        interaction="voice", i=0):
    forms = ja.follow_ups(kind, key, interaction, tense, back, subject.kind)
    return ja.fill(forms[i], subject, reference, value).text


def test_before_and_the_holder_referred_back_to():
    assert ask("before", "P35", CHINA, None, XI) == \
        "習近平の前に中華人民共和国の元首だったのは誰ですか？"
    assert ask("before", "P35", CHINA, "zero", XI) == "習近平の前に元首だったのは誰ですか？"
    assert ask("before", "P35", CHINA, "noun", XI, back=True) == "彼の前は誰でしたか？"
    assert ask("before", "P26", MICHAEL, "zero", DEBBIE_ROWE, back=True) == \
        "デビー・ロウの前は誰と結婚していましたか？"
    assert ask("before", "P54", ANDROS, "zero", LEGIA, back=True) == \
        "その前はどのチームにいましたか？"
    assert ask("before", "P35", CHINA, None, XI, interaction="text") == \
        "中華人民共和国 元首 習近平の前"


def test_also_leaves_the_subject_unsaid():
    assert ask("also", ("P35", "P6"), BRAZIL, None, ROUSSEFF) == \
        "ジルマ・ルセフはブラジルの政府の長も兼ねていますか？"
    assert ask("also", ("P35", "P6"), BRAZIL, "zero", BOLSONARO, back=True) == \
        "彼は政府の長も兼ねているんですか？"
    assert ask("also", ("P35", "P6"), BRAZIL, "zero", ROUSSEFF, back=True, tense="past") == \
        "彼女は政府の長も兼ねていたんですか？"
    assert ask("also", ("P57", "P58"), CLUNY_BROWN, "zero", LUBITSCH, back=True) == \
        "脚本も彼が書いたんですか？"
    assert ask("also", ("P19", "P20"), BEETHOVEN, None, BONN) == \
        "ベートーヴェンが亡くなったのもボンですか？"
    assert ask("also", ("P19", "P20"), BEETHOVEN, "zero", BONN, back=True) == \
        "亡くなったのもそこですか？"
    assert ask("also", ("P35", "P6"), BRAZIL, "zero", ROUSSEFF, back=True,
               interaction="text") == "ジルマ・ルセフは政府の長も兼任？"


def test_spans_ask_how_many_years_never_which_year():
    assert ask("span", "age", BEETHOVEN) == "ベートーヴェンは何歳で亡くなりましたか？"
    assert ask("span", "age", BEETHOVEN, "zero", back=True) == "その時何歳でしたか？"
    assert ask("span", "existence", SOVIET_UNION) == "ソビエト連邦は何年間存続しましたか？"
    assert ask("span", ("term", "P54"), ANDROS, "zero", LEGIA, back=True) == \
        "そこで何年間プレーしましたか？"
    assert ask("span", ("term", "P26"), MERYL, None, GUMMER) == \
        "メリル・ストリープはドン・ガマーと何年間結婚していましたか？"
    assert not ja.asks_year(ask("span", "existence", SOVIET_UNION))


def test_counts_lists_pairs_and_where_in():
    assert ask("count", "P37", SWITZERLAND) == "スイスには公用語がいくつありますか？"
    assert ask("count", "P37", SWITZERLAND, "noun") == "その国には公用語がいくつありますか？"
    assert ask("count", "P37", SWITZERLAND, interaction="text") == "スイス 公用語の数"
    assert ask("count", "P40", MICHAEL, "zero", back=True, interaction="text") == "子供の人数は？"
    assert ask("list", "P37", SWITZERLAND) == "何語ですか？"
    assert ask("pair", ("P19", "P569"), BEETHOVEN) == "それはどこでしたか？"
    assert ask("where_in", ("P131", "P17"), LONDON, None, UK) == \
        "ロンドンはイギリスのどの地方にありますか？"
    assert ask("where_in", ("P131", "P17"), LONDON, "zero", UK) == \
        "イギリスのどの地方にありますか？"


def test_verify():
    assert ask("verify", "P26", MERYL, None, GUMMER) == \
        "メリル・ストリープはドン・ガマーと結婚していますか？"
    assert ask("verify", "P36", UAE, None, Subject("バマコ", kind="city")) == \
        "アラブ首長国連邦の首都はバマコですか？"
    assert ask("verify", "P19", BEETHOVEN, None, BONN, interaction="text") == \
        "ベートーヴェン ボン生まれ？"


def test_yes_no():
    assert (ja.yes_no(True), ja.yes_no(False)) == ("はい", "いいえ")
