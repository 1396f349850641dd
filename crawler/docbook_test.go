package crawler

import (
	"golang.org/x/net/html"
	"net/url"
	"strings"
	"testing"
)

// docbookPage is the shape of a DocBook chapter page as its XSL writes it
// (Debian's maint-guide, upload.en.html, shortened): a navigation table, a
// chapter of a title page, a table of contents, an introduction and
// div.section blocks whose headings open with an <a id="…"/> anchor, and
// the footnotes.
const docbookPage = `<!DOCTYPE html><html><head><title>Chapter 9. Uploading the package</title></head><body>
<div class="navheader"><table width="100%" summary="Navigation header"><tr><th colspan="3" align="center">Chapter 9. Uploading the package</th></tr>
<tr><td align="left"><a accesskey="p" href="update.en.html"><img src="images/prev.png" alt="Prev"/></a> </td><th width="60%" align="center"> </th>
<td align="right"> <a accesskey="n" href="advanced.en.html"><img src="images/next.png" alt="Next"/></a></td></tr></table><hr/></div>
<div class="chapter"><div class="titlepage"><div><div><h1 class="title"><a id="upload"/>Chapter 9. Uploading the package</h1></div></div></div>
<div class="toc"><p><strong>Table of Contents</strong></p><dl class="toc">
<dt><span class="section"><a href="upload.en.html#upload-debian">9.1. Uploading to the Debian archive</a></span></dt>
<dt><span class="section"><a href="upload.en.html#option-sa">9.2. Including orig.tar.gz for upload</a></span></dt>
<dt><span class="section"><a href="upload.en.html#skipped-uploads">9.3. Skipped uploads</a></span></dt></dl></div>
<p>Now that you have tested your new package thoroughly, you want to release it to a public archive to share it.</p>
<div class="section"><div class="titlepage"><div><div><h2 class="title"><a id="upload-debian"/>9.1. Uploading to the Debian archive</h2></div></div></div>
<p>Once you become an official developer, <a href="#ftn.idm3699" class="footnote" id="idm3699"><sup class="footnote">[82]</sup></a> you can upload the package to the Debian archive. You can do this manually, but it's easier to use the existing automated tools, like dupload(1) or dput(1). We'll describe how it's done with dupload.</p>
<p>First you have to set up dupload's config file. You can either edit the system-wide /etc/dupload.conf file, or have your own ~/.dupload.conf file override the few things you want to change.</p>
<p>You can read the dupload.conf(5) manual page to understand what each of these options means.</p>
<p>The $default_host option determines which of the upload queues will be used by default. anonymous-ftp-master is the primary one, but it's possible that you will want to use another one.</p>
<p>While connected to the Internet, you can upload your package as follows:</p>
<pre class="screen">$ dupload gentoo_0.9.12-1_i386.changes</pre>
<p>dupload checks that the SHA1/SHA256 file checksums match those listed in the .changes file. If they do not match, it will warn you to rebuild it so it can be properly uploaded.</p>
</div>
<div class="section"><div class="titlepage"><div><div><h2 class="title"><a id="option-sa"/>9.2. Including orig.tar.gz for upload</h2></div></div></div>
<p>When you first upload the package to the archive, you need to include the original orig.tar.gz source, too.</p>
<p>For the dpkg-buildpackage command:</p><pre class="screen">$ dpkg-buildpackage -sa</pre>
<p>On the other hand, the -sd option will force the exclusion of the original orig.tar.gz source.</p>
</div>
<div class="section"><div class="titlepage"><div><div><h2 class="title"><a id="skipped-uploads"/>9.3. Skipped uploads</h2></div></div></div>
<p>If you created multiple entries in debian/changelog by skipping uploads, you must create a proper changes file.</p>
<pre class="screen">$ dpkg-buildpackage -v1.2</pre>
</div>
<div class="footnotes"><br/><hr/><div id="ftn.idm3699" class="footnote"><p><a href="#idm3699" class="para"><sup class="para">[82] </sup></a>See Section 1.1, “Social dynamics of Debian”.</p></div></div>
</div>
<div class="navfooter"><hr/><table width="100%" summary="Navigation footer"><tr><td align="left"><a accesskey="p" href="update.en.html">Prev</a></td><td align="center"> </td><td align="right"><a accesskey="n" href="advanced.en.html">Next</a></td></tr></table></div>
</body></html>`

// A DocBook chapter keeps all its sections: the text after an <a id/>
// anchor (which the HTML parser leaves open over the rest of the section)
// is not link text, and the sections after the best-scoring one are its
// kind (div.section) and prose, so they are kept with it.
func TestExtractDocBookSections(t *testing.T) {
	u, _ := url.Parse("http://docs.example/maint-guide/upload.en.html")
	d, err := Extract([]byte(docbookPage), "text/html", true, u)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Once you become an official developer",
		"9.2. Including orig.tar.gz for upload",
		"the -sd option will force the exclusion",
		"9.3. Skipped uploads",
		"by skipping uploads, you must create a proper changes file",
		"$ dpkg-buildpackage -v1.2",
	} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("Text lacks %q:\n%s", want, d.Text)
		}
	}
}

// An <a id> (no href) is an anchor: the text it wraps counts as prose,
// an <a href>'s as link text.
func TestAnchorIsNotLinkText(t *testing.T) {
	u, _ := url.Parse("http://docs.example/p.html")
	d, err := Extract([]byte(`<html><body><div id="a"><h2><a id="x"/>Heading</h2><p>Some prose of a section, long enough to be a paragraph.</p></div>`+
		`<div id="b"><a href="/y">Some link text of a list, long enough to be a paragraph.</a></div></body></html>`), "text/html", true, u)
	if err != nil {
		t.Fatal(err)
	}
	c := d.content
	var a, b *stat
	for n, s := range c.stats {
		if id, _ := attr(n, "id"); id == "a" {
			a = s
		} else if id == "b" {
			b = s
		}
	}
	if a == nil || b == nil {
		t.Fatal("no stats for the two blocks")
	}
	if a.linkChars != 0 || a.chars == 0 {
		t.Errorf("section after <a id/>: %d of %d characters counted as links, want 0", a.linkChars, a.chars)
	}
	if b.linkChars != b.chars || b.chars == 0 {
		t.Errorf("<a href> block: %d of %d characters counted as links, want all", b.linkChars, b.chars)
	}
}

// A chapter's table of contents, whose links lead to its own sections,
// is kept with the chapter; a list of links to other pages is not
// (inPageTOC).
func TestExtractInPageTOCKept(t *testing.T) {
	u, _ := url.Parse("http://docs.example/maint-guide/upload.en.html")
	d, err := Extract([]byte(docbookPage), "text/html", true, u)
	if err != nil {
		t.Fatal(err)
	}
	toc := strings.Index(d.Text, "Table of Contents")
	intro := strings.Index(d.Text, "Now that you have tested")
	if toc < 0 || intro < toc || !strings.Contains(d.Text[toc:intro], "9.1. Uploading to the Debian archive") {
		t.Errorf("the chapter's table of contents is not kept before its introduction:\n%s", d.Text)
	}
	for _, tc := range []struct {
		html string
		want bool
	}{
		{`<dl class="toc"><dt><a href="upload.en.html#upload-debian">9.1</a></dt><dt><a href="upload.en.html#option-sa">9.2</a></dt></dl>`, true},
		{`<ul><li><a href="#intro">Intro</a></li><li><a href="#usage">Usage</a></li></ul>`, true},
		{`<ul><li><a href="/news/a.html">A story</a></li><li><a href="/news/b.html">Another story</a></li></ul>`, false},
		{`<ul><li><a href="a.html#x">A</a></li><li><a href="b.html#y">B</a></li></ul>`, false},
		{`<ul><li><a href="#top">Top</a></li></ul>`, false},
	} {
		doc, err := Extract([]byte("<html><body>"+tc.html+"</body></html>"), "text/html", true, u)
		if err != nil {
			t.Fatal(err)
		}
		list := doc.root.LastChild.LastChild.FirstChild // <body>'s first element
		if list == nil || list.Type != html.ElementNode {
			t.Fatalf("no list in %s", tc.html)
		}
		if got := inPageTOC(list); got != tc.want {
			t.Errorf("inPageTOC(%s) = %v, want %v", tc.html, got, tc.want)
		}
	}
}

// A DocBook subsection whose long list outscores its paragraphs (the
// Debian Administrator's Handbook, sect.filesystem-hierarchy, shortened):
// the list's div.para siblings are its text, and with them it is all of
// its subsection, which then stands for it, so the next subsection is
// kept too.
func TestExtractDocBookListAmongParagraphs(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body><div id="banner"><a href="http://debian-handbook.info/get/"><span class="text">Download the ebook</span></a></div>
<ul class="docnav top"><li class="previous"><a accesskey="p" href="short-remedial-course.html"><strong>Prev</strong></a></li><li class="home">The Debian Administrator's Handbook</li><li class="next"><a accesskey="n" href="sect.computer-layers.html"><strong>Next</strong></a></li></ul>
<div class="section"><div class="titlepage"><div><div><h2 class="title"><a id="sect.filesystem-hierarchy"></a>B.2. Organization of the Filesystem Hierarchy</h2></div></div></div>
<div class="section"><div class="titlepage"><div><div><h3 class="title"><a id="id-1.21.5.3"></a>B.2.1. The Root Directory</h3></div></div></div>
<div class="para">A Debian system is organized along the File Hierarchy Standard (FHS). This standard defines the purpose of each directory.</div>
<div class="itemizedlist"><ul>`)
	for _, d := range []string{"/bin/: basic programs;", "/boot/: Linux kernel and other files required for its early boot process;", "/dev/: device files;", "/etc/: configuration files;", "/home/: users' personal files;", "/lib/: basic libraries;", "/media/*: mount points for removable devices (CD-ROM, USB keys, and so on);", "/mnt/: temporary mount point;", "/opt/: extra applications provided by third parties;", "/root/: administrator's (root's) personal files;", "/run/: volatile runtime data that does not persist across reboots;", "/sbin/: system programs;", "/srv/: data used by servers hosted on this system;", "/tmp/: temporary files; this directory is often emptied at boot;", "/var/: variable data handled by daemons. This includes log files, queues, spools, caches and so on."} {
		b.WriteString(`<li class="listitem"><div class="para">` + d + `</div></li>`)
	}
	b.WriteString(`</ul></div>
<div class="para">/proc/ and /sys/ are specific to the Linux kernel (and not part of the FHS). They are used by the kernel for exporting data to user space.</div></div>
<div class="section"><div class="titlepage"><div><div><h3 class="title"><a id="id-1.21.5.4"></a>B.2.2. The User's Home Directory</h3></div></div></div>
<div class="para">The contents of a user's directory is not standardized, but there are still a few noteworthy conventions.</div>
<div class="para">Graphical desktops usually have shortcuts to display the contents of the Desktop directory, or use it as a desktop.</div></div>
<div class="section"><div class="titlepage"><div><div><h3 class="title"><a id="id-1.21.5.5"></a>B.2.3. Configuration Files</h3></div></div></div>
<div class="para">Applications keep their configuration in files or directories whose names start with a dot, so that the listing of a home directory does not show them.</div>
<div class="para">Some programs also use multiple configuration files organized in one directory, such as the one of the mail client, the browser or the editor.</div></div>
</div><ul class="docnav"><li class="previous"><a accesskey="p" href="short-remedial-course.html"><strong>Prev</strong></a></li><li class="next"><a accesskey="n" href="sect.computer-layers.html"><strong>Next</strong></a></li></ul></body></html>`)
	u, _ := url.Parse("http://docs.example/handbook/en-US/sect.filesystem-hierarchy.html")
	d, err := Extract([]byte(b.String()), "text/html", true, u)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"A Debian system is organized along the File Hierarchy Standard",
		"/var/: variable data handled by daemons.",
		"/proc/ and /sys/ are specific to the Linux kernel",
		"B.2.2. The User's Home Directory",
		"there are still a few noteworthy conventions",
	} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("Text lacks %q:\n%s", want, d.Text)
		}
	}
	if strings.Contains(d.Text, "Download the ebook") {
		t.Errorf("Text keeps the banner:\n%s", d.Text)
	}
}

// An Asciidoctor section (KiCad's pcb_calculator manual, shortened): its
// paragraphs are div.paragraph wrappers of one <p>, prose beside the long
// list that outscores each of them, and are kept with it, as is the next
// section.
func TestExtractAsciidoctorParagraphWrappers(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body class="article toc2 toc-left"><div id="header"><h1>Calculator Tools</h1></div>
<div id="content"><div class="sect1"><h2 id="calculators">2. Calculators</h2><div class="sectionbody">
<div class="sect2"><h3 id="board-classes">2.9. Board-Classes</h3>
<div class="paragraph"><p>The Board Classes tab gives the track and clearance widths of the six classes of boards, from the coarsest to the finest.</p></div>
<div class="ulist"><ul>`)
	for _, c := range []string{"one", "two", "three", "four", "five", "six"} {
		b.WriteString(`<li><p>Class ` + c + `: lines, clearances and via pads for boards of class ` + c + `, in millimetres and in mils, for the outer and the inner layers.</p></li>`)
	}
	b.WriteString(`</ul></div>
<div class="paragraph"><p>The values are those of the standard; your board house may have its own.</p></div>
</div>
<div class="sect2"><h3 id="via-size">2.10. Via Size</h3>
<div class="paragraph"><p>The Via Size tool computes the electrical and thermal properties of a given plated through hole pad or via.</p></div>
</div></div></div></div></body></html>`)
	u, _ := url.Parse("http://docs.example/kicad/en/pcb_calculator.html")
	d, err := Extract([]byte(b.String()), "text/html", true, u)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"The Board Classes tab gives the track and clearance widths",
		"Class six: lines, clearances",
		"your board house may have its own",
		"2.10. Via Size",
		"The Via Size tool computes",
	} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("Text lacks %q:\n%s", want, d.Text)
		}
	}
}
